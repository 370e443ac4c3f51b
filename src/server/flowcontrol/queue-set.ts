import type { RequestInfo } from "../../request/request-info.js";
import type { SeatDemand } from "./borrowing.js";
import { dealHand } from "./shuffle-shard.js";

/** Flows whose hand is remembered per level. */
const MAX_REMEMBERED_HANDS = 4096;

/** How one Limited priority level limits: its seats, and either Reject or Queue with its queues. */
export interface QueueSetConfig {
  /** Seats the level may occupy at once (at least 1). */
  readonly concurrencyLimit: number;
  /** Undefined for `Reject`: a request finding no free seat is turned away at once. */
  readonly queuing?: { readonly queues: number; readonly handSize: number; readonly queueLengthLimit: number };
}

/** Why a request was not dispatched, as kube's `reason` label spells it. */
export type RejectReason = "queue-full" | "concurrency-limit" | "time-out" | "cancelled";

export type Admission =
  | { readonly kind: "dispatched"; readonly queue: number; readonly seats: number; readonly waitedMs: number }
  | { readonly kind: "rejected"; readonly reason: RejectReason; readonly waitedMs: number };

/** What the dumps show of a waiting request. */
export interface RequestDescription {
  readonly flowSchema: string;
  readonly user: string;
  readonly info: RequestInfo;
}

/** A waiting request, as the dumps show it. */
export interface WaitingRequest {
  readonly queue: number;
  readonly arrived: number;
  readonly flow: string;
  readonly describe: RequestDescription;
}

interface Waiter extends WaitingRequest {
  /** Moves when the level's queue count shrinks. */
  queue: number;
  /** When its wait limit passes (epoch ms). */
  readonly deadline: number;
  /** Seats it occupies once dispatched (its work estimate, at most the level's limit). */
  readonly seats: number;
  readonly settle: (admission: Admission) => void;
}

interface Queue {
  readonly waiting: Waiter[];
  /** Seats its executing requests occupy. */
  executing: number;
  /** Virtual time of the queue's next dispatch: queues are served lowest first, each dispatch adds the seats it took. */
  virtualStart: number;
}

/** Counts kept for the dumps. */
export interface QueueSetCounters {
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
}

/**
 * One priority level's seats and fair queues. A flow (by hash) is dealt a hand of queues and its
 * request joins the shortest of them; freed seats go to the queue with the lowest virtual start,
 * so queues take turns whatever their lengths: a flooding flow fills its own queues and waits in
 * them, while other flows' queues keep being served. A request occupies the seats of its work
 * estimate (a wide list several); the next request in turn waits until that many are free (as
 * kube's, it is not overtaken by narrower ones), and its queue's virtual start advances by its
 * seats. Not thread-shared: Node runs it on one loop.
 */
export class QueueSet {
  private config: QueueSetConfig;
  private queues: Queue[] = [];
  private executingSeats = 0;
  private virtualNow = 0;
  private waitingTotal = 0;
  private waitingSeats = 0;
  /** Hands dealt so far by flow hash (the same for a flow until the queue count or hand size changes). */
  private readonly hands = new Map<number, readonly number[]>();
  /** Told executing plus waiting seats on every change (the level's demand, for borrowing). */
  private readonly demand: SeatDemand | undefined;
  /** The shared wait-limit timer and the deadline it is set for. */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineAt = Number.POSITIVE_INFINITY;
  readonly counters: QueueSetCounters = { dispatched: 0, rejected: 0, timedOut: 0, cancelled: 0 };

  constructor(config: QueueSetConfig, demand?: SeatDemand) {
    this.config = config;
    this.demand = demand;
    this.resize();
  }

  /** Applies a changed configuration; requests already waiting keep their place. */
  reconfigure(config: QueueSetConfig): void {
    if (config.queuing?.queues !== this.config.queuing?.queues || config.queuing?.handSize !== this.config.queuing?.handSize) this.hands.clear();
    this.config = config;
    this.resize();
    this.dispatchWaiting();
  }

  get configuration(): QueueSetConfig {
    return this.config;
  }

  get concurrencyLimit(): number {
    return this.config.concurrencyLimit;
  }

  get executing(): number {
    return this.executingSeats;
  }

  get waitingCount(): number {
    return this.waitingTotal;
  }

  /** Per queue: waiting and executing requests and its virtual start (dump_queues). */
  queueStates(): readonly { readonly waiting: number; readonly executing: number; readonly virtualStart: number }[] {
    return this.queues.map((queue) => ({ waiting: queue.waiting.length, executing: queue.executing, virtualStart: queue.virtualStart }));
  }

  waitingRequests(): readonly WaitingRequest[] {
    return this.queues.flatMap((queue) => queue.waiting);
  }

  /**
   * The fast path of `acquire`, synchronous: when the level has a free seat for the request and
   * nothing waits ahead of it, takes the seats and returns the admission (release it as usual);
   * otherwise returns undefined and takes nothing — call `acquire`, which queues or rejects.
   * `now`: a reading of the level's demand clock (`performance.now()`) the caller already took.
   */
  tryDispatch(hash: number, requestedSeats: number, now?: number): Admission | undefined {
    if (this.waitingTotal > 0) return undefined;
    const seats = Math.max(1, Math.min(requestedSeats, this.config.concurrencyLimit));
    if (this.executingSeats + seats > this.config.concurrencyLimit) return undefined;
    const queuing = this.config.queuing;
    if (queuing === undefined) return this.dispatch(0, seats, 0, now);
    const chosen = this.shortestQueue(this.handOf(hash, queuing.handSize));
    const queue = this.queues[chosen];
    if (queue === undefined) return undefined;
    queue.virtualStart = Math.max(queue.virtualStart, this.virtualNow) + seats;
    return this.dispatch(chosen, seats, 0, now);
  }

  /** The queue of a hand with the fewest requests waiting and executing (the first of equals). */
  private shortestQueue(hand: readonly number[]): number {
    let chosen = hand[0] ?? 0;
    let best = this.queues[chosen];
    for (const index of hand) {
      const queue = this.queues[index];
      if (queue !== undefined && best !== undefined && queue.waiting.length + queue.executing < best.waiting.length + best.executing) {
        chosen = index;
        best = queue;
      }
    }
    return chosen;
  }

  /**
   * Asks for seats (`options.seats`, default 1, capped at the level's limit) for one request of
   * flow `hash`: resolves dispatched (call `release` with the admission when done) or rejected
   * (full queue, no seats under Reject, `waitLimitMs` passed, or `signal` aborted while waiting).
   */
  acquire(
    hash: number,
    options: {
      readonly signal: AbortSignal;
      readonly waitLimitMs: number;
      readonly flow: string;
      readonly describe: RequestDescription;
      readonly seats?: number;
    },
  ): Promise<Admission> {
    const seats = Math.max(1, Math.min(options.seats ?? 1, this.config.concurrencyLimit));
    const queuing = this.config.queuing;
    if (queuing === undefined) {
      if (this.executingSeats + seats > this.config.concurrencyLimit) return Promise.resolve(this.reject("concurrency-limit", 0));
      return Promise.resolve(this.dispatch(0, seats, 0));
    }
    const chosen = this.shortestQueue(this.handOf(hash, queuing.handSize));
    const queue = this.queues[chosen];
    if (queue === undefined) return Promise.resolve(this.reject("concurrency-limit", 0));
    if (this.waitingTotal === 0 && this.executingSeats + seats <= this.config.concurrencyLimit) {
      queue.virtualStart = Math.max(queue.virtualStart, this.virtualNow) + seats;
      return Promise.resolve(this.dispatch(chosen, seats, 0));
    }
    if (queue.waiting.length >= queuing.queueLengthLimit) return Promise.resolve(this.reject("queue-full", 0));
    if (options.signal.aborted) return Promise.resolve(this.reject("cancelled", 0));
    return new Promise<Admission>((resolve) => {
      const arrived = Date.now();
      const onAbort = () => this.abandon(waiter, "cancelled");
      const settle = (admission: Admission) => {
        options.signal.removeEventListener("abort", onAbort);
        resolve(admission);
      };
      const waiter: Waiter = { queue: chosen, arrived, deadline: arrived + options.waitLimitMs, flow: options.flow, describe: options.describe, seats, settle };
      if (queue.waiting.length === 0) queue.virtualStart = Math.max(queue.virtualStart, this.virtualNow);
      queue.waiting.push(waiter);
      this.waitingTotal++;
      this.waitingSeats += seats;
      this.noteDemand();
      this.scheduleDeadline(waiter.deadline);
      options.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Takes a waiting request out of its queue and rejects it (its wait limit passed, or its client went away). */
  private abandon(waiter: Waiter, reason: "time-out" | "cancelled"): void {
    const holder = this.queues[waiter.queue]?.waiting;
    const position = holder?.indexOf(waiter) ?? -1;
    if (holder === undefined || position < 0) return;
    holder.splice(position, 1);
    this.waitingTotal--;
    this.waitingSeats -= waiter.seats;
    this.noteDemand();
    waiter.settle(this.reject(reason, Date.now() - waiter.arrived));
  }

  /**
   * One timer per queue set for the earliest wait limit, not one per waiting request (a timer
   * each was a measurable share of a queued request's cost): when it fires, every request past
   * its limit is rejected and the timer is set for the next limit.
   */
  private scheduleDeadline(deadline: number): void {
    if (this.deadlineTimer !== undefined && this.deadlineAt <= deadline) return;
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.deadlineAt = deadline;
    this.deadlineTimer = setTimeout(this.expire, Math.max(0, deadline - Date.now()));
    // The wait limit alone never keeps the process up; the requests it belongs to do.
    this.deadlineTimer.unref();
  }

  private readonly expire = (): void => {
    this.deadlineTimer = undefined;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const queue of this.queues) {
      for (const waiter of [...queue.waiting]) {
        if (waiter.deadline <= now) this.abandon(waiter, "time-out");
        else next = Math.min(next, waiter.deadline);
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.scheduleDeadline(next);
  };

  /**
   * Frees the seats a dispatched request held and hands them to the requests waiting in turn.
   * `now`: a reading of the level's demand clock (`performance.now()`) the caller already took.
   */
  release(admission: { readonly queue: number; readonly seats: number }, now?: number): void {
    this.executingSeats = Math.max(0, this.executingSeats - admission.seats);
    const queue = this.queues[admission.queue];
    if (queue !== undefined) queue.executing = Math.max(0, queue.executing - admission.seats);
    // Nothing waits on most releases: no scan of the queues, no clock read for them then.
    if (this.waitingTotal > 0) this.dispatchWaiting();
    this.noteDemand(now);
  }

  private handOf(hash: number, handSize: number): readonly number[] {
    let hand = this.hands.get(hash);
    if (hand === undefined) {
      if (this.hands.size >= MAX_REMEMBERED_HANDS) this.hands.clear();
      hand = dealHand(hash, this.queues.length, handSize);
      this.hands.set(hash, hand);
    }
    return hand;
  }

  private noteDemand(now?: number): void {
    this.demand?.set(this.executingSeats + this.waitingSeats, now);
  }

  private dispatch(queueIndex: number, seats: number, waitedMs: number, now?: number): Admission {
    this.executingSeats += seats;
    const queue = this.queues[queueIndex];
    if (queue !== undefined) queue.executing += seats;
    this.counters.dispatched++;
    this.noteDemand(now);
    return { kind: "dispatched", queue: queueIndex, seats, waitedMs };
  }

  private reject(reason: RejectReason, waitedMs: number): Admission {
    this.counters.rejected++;
    if (reason === "time-out") this.counters.timedOut++;
    if (reason === "cancelled") this.counters.cancelled++;
    return { kind: "rejected", reason, waitedMs };
  }

  private dispatchWaiting(): void {
    // Nothing waits on most releases: no scan of the queues then.
    while (this.waitingTotal > 0 && this.executingSeats < this.config.concurrencyLimit) {
      let next: Queue | undefined;
      let nextIndex = -1;
      for (let index = 0; index < this.queues.length; index++) {
        const candidate = this.queues[index];
        if (candidate !== undefined && candidate.waiting.length > 0 && (next === undefined || candidate.virtualStart < next.virtualStart)) {
          next = candidate;
          nextIndex = index;
        }
      }
      const queue: Queue | undefined = next;
      if (queue === undefined) return;
      const head = queue.waiting[0];
      // The request in turn waits for all its seats; narrower ones behind it do not overtake it.
      if (head === undefined || this.executingSeats + Math.min(head.seats, this.config.concurrencyLimit) > this.config.concurrencyLimit) return;
      queue.waiting.shift();
      this.waitingTotal--;
      this.waitingSeats -= head.seats;
      this.virtualNow = queue.virtualStart;
      queue.virtualStart += head.seats;
      head.settle(this.dispatch(nextIndex, Math.min(head.seats, this.config.concurrencyLimit), Date.now() - head.arrived));
    }
  }

  private resize(): void {
    const wanted = this.config.queuing?.queues ?? 1;
    while (this.queues.length < wanted) this.queues.push({ waiting: [], executing: 0, virtualStart: this.virtualNow });
    // Queues beyond a lowered count drain: their waiters are moved to the queues that remain.
    while (this.queues.length > wanted) {
      const removed = this.queues.pop();
      for (const waiter of removed?.waiting ?? []) {
        waiter.queue %= wanted;
        this.queues[waiter.queue]?.waiting.push(waiter);
      }
    }
  }
}
