import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { RejectReason } from "./queue-set.js";

/** kube's `apiserver_flowcontrol_*` series (names and labels as kube-apiserver 1.30 exports them). */
export interface FlowControlMetrics {
  dispatched(flowSchema: string, priorityLevel: string, waitedSeconds: number): void;
  rejected(flowSchema: string, priorityLevel: string, reason: RejectReason, waitedSeconds: number): void;
  /** +1 when a request starts waiting, -1 when it stops. */
  inQueue(flowSchema: string, priorityLevel: string, delta: number): void;
  /** +1 when a request starts executing, -1 when it finishes; `seats` is how many it occupies (default 1). */
  executing(flowSchema: string, priorityLevel: string, delta: number, seats?: number): void;
  executed(flowSchema: string, priorityLevel: string, seconds: number): void;
  limits(priorityLevel: string, nominal: number, current: number): void;
}

const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export function flowControlMetrics(registry: Registry): FlowControlMetrics {
  const pair = ["flow_schema", "priority_level"] as const;
  const dispatched = new Counter({
    name: "apiserver_flowcontrol_dispatched_requests_total",
    help: "[BETA] Number of requests executed by API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
  });
  const rejected = new Counter({
    name: "apiserver_flowcontrol_rejected_requests_total",
    help: "[BETA] Number of requests rejected by API Priority and Fairness subsystem",
    labelNames: [...pair, "reason"],
    registers: [registry],
  });
  const inQueue = new Gauge({
    name: "apiserver_flowcontrol_current_inqueue_requests",
    help: "[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
  });
  const executingRequests = new Gauge({
    name: "apiserver_flowcontrol_current_executing_requests",
    help: "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
  });
  const executingSeats = new Gauge({
    name: "apiserver_flowcontrol_current_executing_seats",
    help: "[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem",
    labelNames: [...pair],
    registers: [registry],
  });
  const wait = new Histogram({
    name: "apiserver_flowcontrol_request_wait_duration_seconds",
    help: "[BETA] Length of time a request spent waiting in its queue",
    labelNames: [...pair, "execute"],
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const execution = new Histogram({
    name: "apiserver_flowcontrol_request_execution_seconds",
    help: "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem",
    labelNames: [...pair, "type"],
    buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
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
  // Label children per (flow schema, priority level), looked up once: prom-client hashes a label object on every call.
  interface Series {
    readonly dispatched: ReturnType<typeof dispatched.labels>;
    readonly inQueue: ReturnType<typeof inQueue.labels>;
    readonly executingRequests: ReturnType<typeof executingRequests.labels>;
    readonly executingSeats: ReturnType<typeof executingSeats.labels>;
    readonly waitExecuted: ReturnType<typeof wait.labels>;
    readonly execution: ReturnType<typeof execution.labels>;
  }
  const series = new Map<string, Series>();
  const seriesOf = (flowSchema: string, priorityLevel: string): Series => {
    const key = `${flowSchema}\0${priorityLevel}`;
    let entry = series.get(key);
    if (entry === undefined) {
      const labels = { flow_schema: flowSchema, priority_level: priorityLevel };
      entry = {
        dispatched: dispatched.labels(labels),
        inQueue: inQueue.labels(labels),
        executingRequests: executingRequests.labels(labels),
        executingSeats: executingSeats.labels(labels),
        waitExecuted: wait.labels({ ...labels, execute: "true" }),
        execution: execution.labels({ ...labels, type: "regular" }),
      };
      series.set(key, entry);
    }
    return entry;
  };
  return {
    dispatched(flowSchema, priorityLevel, waitedSeconds) {
      const entry = seriesOf(flowSchema, priorityLevel);
      entry.dispatched.inc();
      entry.waitExecuted.observe(waitedSeconds);
    },
    rejected(flowSchema, priorityLevel, reason, waitedSeconds) {
      rejected.inc({ flow_schema: flowSchema, priority_level: priorityLevel, reason });
      wait.observe({ flow_schema: flowSchema, priority_level: priorityLevel, execute: "false" }, waitedSeconds);
    },
    inQueue(flowSchema, priorityLevel, delta) {
      seriesOf(flowSchema, priorityLevel).inQueue.inc(delta);
    },
    executing(flowSchema, priorityLevel, delta, seats = 1) {
      const entry = seriesOf(flowSchema, priorityLevel);
      entry.executingRequests.inc(delta);
      entry.executingSeats.inc(delta * seats);
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
