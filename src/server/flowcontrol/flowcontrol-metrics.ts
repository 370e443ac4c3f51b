import { Counter, Gauge, type Registry } from "prom-client";
import { SeriesHistogram, type SeriesRecorder } from "../metrics/series-histogram.js";
import type { RejectReason } from "./queue-set.js";

/** kube's `apiserver_flowcontrol_*` series (names and labels as kube-apiserver 1.30 exports them). */
export interface FlowControlMetrics {
  dispatched(flowSchema: string, priorityLevel: string, waitedSeconds: number): void;
  rejected(flowSchema: string, priorityLevel: string, reason: RejectReason, waitedSeconds: number): void;
  /** +1 when a request starts waiting, -1 when it stops. */
  inQueue(flowSchema: string, priorityLevel: string, delta: number): void;
  /** +1 when a request starts executing, -1 when it finishes; `seats` is how many it occupies (default 1). */
  executing(flowSchema: string, priorityLevel: string, delta: number, seats?: number): void;
  /** Seats a request kept after it finished executing (kube's additional latency) are given back. */
  seatsReleased(flowSchema: string, priorityLevel: string, seats: number): void;
  /** The seats a request's work estimate asked for (`apiserver_flowcontrol_work_estimated_seats`). */
  estimated(flowSchema: string, priorityLevel: string, seats: number): void;
  executed(flowSchema: string, priorityLevel: string, seconds: number): void;
  limits(priorityLevel: string, nominal: number, current: number): void;
  /** The per-request figures of one (flow schema, priority level) pair, found once: the filter keeps it per classification. */
  series(flowSchema: string, priorityLevel: string): FlowSeriesMetrics;
}

/** One (flow schema, priority level) pair's per-request figures: each call is a few additions, no lookup, no allocation. */
export interface FlowSeriesMetrics {
  dispatched(waitedSeconds: number): void;
  rejected(reason: RejectReason, waitedSeconds: number): void;
  inQueue(delta: number): void;
  executing(delta: number, seats: number): void;
  /** Seats a request kept after it finished executing (kube's additional latency) are given back. */
  seatsReleased(seats: number): void;
  /** The seats a request's work estimate asked for (`apiserver_flowcontrol_work_estimated_seats`). */
  estimated(seats: number): void;
  executed(seconds: number): void;
}

const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

/** One (flow schema, priority level) pair's per-request figures, kept as plain numbers and handed to prom-client at scrape time. */
interface Series {
  readonly labels: { readonly flow_schema: string; readonly priority_level: string };
  dispatched: number;
  /** Dispatched count already added to the prom-client counter. */
  dispatchedReported: number;
  inQueue: number;
  executingRequests: number;
  executingSeats: number;
  readonly waitExecuted: SeriesRecorder;
  readonly execution: SeriesRecorder;
  readonly estimatedSeats: SeriesRecorder;
}

export function flowControlMetrics(registry: Registry): FlowControlMetrics {
  const pair = ["flow_schema", "priority_level"] as const;
  // The per-request series are plain numbers (prom-client hashes a label object on every call,
  // several times per request); each metric's collect copies them in when /metrics is read.
  const all: Series[] = [];
  new Counter({
    name: "apiserver_flowcontrol_dispatched_requests_total",
    help: "[BETA] Number of requests executed by API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
    collect() {
      for (const entry of all) {
        if (entry.dispatched === entry.dispatchedReported) continue;
        this.inc(entry.labels, entry.dispatched - entry.dispatchedReported);
        entry.dispatchedReported = entry.dispatched;
      }
    },
  });
  const rejected = new Counter({
    name: "apiserver_flowcontrol_rejected_requests_total",
    help: "[BETA] Number of requests rejected by API Priority and Fairness subsystem",
    labelNames: [...pair, "reason"],
    registers: [registry],
  });
  new Gauge({
    name: "apiserver_flowcontrol_current_inqueue_requests",
    help: "[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
    collect() {
      for (const entry of all) this.set(entry.labels, entry.inQueue);
    },
  });
  new Gauge({
    name: "apiserver_flowcontrol_current_executing_requests",
    help: "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
    collect() {
      for (const entry of all) this.set(entry.labels, entry.executingRequests);
    },
  });
  new Gauge({
    name: "apiserver_flowcontrol_current_executing_seats",
    help: "[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
    collect() {
      for (const entry of all) this.set(entry.labels, entry.executingSeats);
    },
  });
  const wait = new SeriesHistogram({
    name: "apiserver_flowcontrol_request_wait_duration_seconds",
    help: "[BETA] Length of time a request spent waiting in its queue",
    labelNames: [...pair, "execute"],
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const execution = new SeriesHistogram({
    name: "apiserver_flowcontrol_request_execution_seconds",
    help: "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem",
    labelNames: [...pair, "type"],
    buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
    registers: [registry],
  });
  const estimated = new SeriesHistogram({
    name: "apiserver_flowcontrol_work_estimated_seats",
    help: "[ALPHA] Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness",
    labelNames: [...pair],
    buckets: [1, 2, 4, 10],
    registers: [registry],
  });
  const nominal = new Gauge({
    name: "apiserver_flowcontrol_nominal_limit_seats",
    help: "[BETA] Nominal number of execution seats configured for each priority level",
    labelNames: ["priority_level"],
    registers: [registry],
  });
  const current = new Gauge({
    name: "apiserver_flowcontrol_current_limit_seats",
    help: "[ALPHA] current derived number of execution seats available to each priority level",
    labelNames: ["priority_level"],
    registers: [registry],
  });
  // Series by flow schema, then priority level: two lookups, no key string built per call.
  const bySchema = new Map<string, Map<string, Series>>();
  const rejectedWaits = new Map<string, SeriesRecorder>();
  const seriesOf = (flowSchema: string, priorityLevel: string): Series => {
    let byLevel = bySchema.get(flowSchema);
    if (byLevel === undefined) {
      byLevel = new Map();
      bySchema.set(flowSchema, byLevel);
    }
    let entry = byLevel.get(priorityLevel);
    if (entry === undefined) {
      const labels = { flow_schema: flowSchema, priority_level: priorityLevel };
      entry = {
        labels,
        dispatched: 0,
        dispatchedReported: 0,
        inQueue: 0,
        executingRequests: 0,
        executingSeats: 0,
        waitExecuted: wait.series({ ...labels, execute: "true" }),
        execution: execution.series({ ...labels, type: "regular" }),
        estimatedSeats: estimated.series(labels),
      };
      byLevel.set(priorityLevel, entry);
      all.push(entry);
    }
    return entry;
  };
  const rejectedWait = (flowSchema: string, priorityLevel: string): SeriesRecorder => {
    const key = `${flowSchema}\0${priorityLevel}`;
    let series = rejectedWaits.get(key);
    if (series === undefined) {
      series = wait.series({ flow_schema: flowSchema, priority_level: priorityLevel, execute: "false" });
      rejectedWaits.set(key, series);
    }
    return series;
  };
  return {
    series(flowSchema, priorityLevel) {
      const entry = seriesOf(flowSchema, priorityLevel);
      return {
        dispatched(waitedSeconds) {
          entry.dispatched++;
          entry.waitExecuted.observe(waitedSeconds);
        },
        rejected(reason, waitedSeconds) {
          rejected.inc({ ...entry.labels, reason });
          rejectedWait(flowSchema, priorityLevel).observe(waitedSeconds);
        },
        inQueue(delta) {
          entry.inQueue += delta;
        },
        executing(delta, seats) {
          entry.executingRequests += delta;
          entry.executingSeats += delta * seats;
        },
        seatsReleased(seats) {
          entry.executingSeats -= seats;
        },
        estimated(seats) {
          entry.estimatedSeats.observe(seats);
        },
        executed(seconds) {
          entry.execution.observe(seconds);
        },
      };
    },
    dispatched(flowSchema, priorityLevel, waitedSeconds) {
      const entry = seriesOf(flowSchema, priorityLevel);
      entry.dispatched++;
      entry.waitExecuted.observe(waitedSeconds);
    },
    rejected(flowSchema, priorityLevel, reason, waitedSeconds) {
      rejected.inc({ flow_schema: flowSchema, priority_level: priorityLevel, reason });
      rejectedWait(flowSchema, priorityLevel).observe(waitedSeconds);
    },
    inQueue(flowSchema, priorityLevel, delta) {
      seriesOf(flowSchema, priorityLevel).inQueue += delta;
    },
    executing(flowSchema, priorityLevel, delta, seats = 1) {
      const entry = seriesOf(flowSchema, priorityLevel);
      entry.executingRequests += delta;
      entry.executingSeats += delta * seats;
    },
    seatsReleased(flowSchema, priorityLevel, seats) {
      seriesOf(flowSchema, priorityLevel).executingSeats -= seats;
    },
    estimated(flowSchema, priorityLevel, seats) {
      seriesOf(flowSchema, priorityLevel).estimatedSeats.observe(seats);
    },
    executed(flowSchema, priorityLevel, seconds) {
      seriesOf(flowSchema, priorityLevel).execution.observe(seconds);
    },
    limits(priorityLevel, nominalSeats, currentSeats) {
      nominal.set({ priority_level: priorityLevel }, nominalSeats);
      current.set({ priority_level: priorityLevel }, currentSeats);
    },
  };
}
