import { ApiError } from "../../api/errors.js";
import { requireInfo, type ApiResponse, type Filter, type RequestContext } from "../../request/context.js";
import { isLongRunning } from "../../request/long-running.js";
import { queryTimeout } from "../../request/query/index.js";

export interface TimeoutFilterOptions {
  /** `--request-timeout`: the longest a non-long-running request may take (0 or less: no limit). */
  readonly requestTimeoutMs: number;
  /** A request ran out of time and was answered 504 (`apiserver_request_terminations_total`). */
  readonly onTimeout?: (context: RequestContext) => void;
  /** Work that went on after its request was answered 504 failed later (logged, never answered). */
  readonly onLateError?: (error: unknown) => void;
}

/** kube's answer when a request outlives its deadline (the handler timeout's Status). */
export function requestTimedOut(): ApiError {
  return new ApiError(504, "Timeout", "Timeout: request did not complete within the allotted timeout", { details: {} });
}

/**
 * The request deadline and handler timeout (kube's `WithRequestDeadline` and
 * `WithTimeoutForNonLongRunningRequests`), right after request info: a request that is not
 * long-running (watch, attach, exec, proxy, log, portforward: `request/long-running.ts`) gets
 * `--request-timeout`, lowered by its `timeout` query parameter when that is shorter and above 0
 * (an unparsable one is 400). When the deadline passes first, the request is answered 504 Timeout
 * and `onTimeout` counts it. The work below is not cancelled (kube cancels its context; here the
 * stages keep the client's signal, and flow control's queue wait, a quarter of
 * `--request-timeout`, ends first): it runs to its end and what it produces is dropped, a late
 * response's stream returned unread, a late failure passed to `onLateError`. The answer is
 * only ever the one this filter returns, so there is no double response, and a late result
 * cannot throw where nobody awaits it.
 */
/** One pending request's deadline: a link in its limit's list until it is answered or expires. */
interface Deadline {
  readonly at: number;
  expire: (() => void) | undefined;
  previous: Deadline | undefined;
  next: Deadline | undefined;
  readonly list: DeadlineList;
}

/** The pending deadlines of one limit, oldest first: with one limit, arrival order is deadline order. */
interface DeadlineList {
  head: Deadline | undefined;
  tail: Deadline | undefined;
}

/** The longest delay Node's setTimeout takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The pending requests' deadlines, with one Node timer for all of them, armed at the earliest and
 * left armed as requests finish. A timer per request (set, then cleared when the answer comes)
 * made Node create and drop its timer list for the limit, and reference and unreference its
 * timer handle, at every request served one at a time: ~6 µs of CPU each with the CPU's caches
 * cold (kubectl, a controller's GETs, the pages of a list), against well under 1 µs for linking
 * and unlinking here. The timer is unreferenced: pending requests keep the process alive by
 * their sockets, and an idle server's timer must not.
 */
export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly now: () => number = performance.now.bind(performance)) {}

  /** Calls `expire` once `limitMs` have passed, unless `cancel` comes first. */
  add(limitMs: number, expire: () => void): Deadline {
    let list = this.lists.get(limitMs);
    if (list === undefined) {
      list = { head: undefined, tail: undefined };
      this.lists.set(limitMs, list);
    }
    const deadline: Deadline = { at: this.now() + limitMs, expire, previous: list.tail, next: undefined, list };
    if (list.tail === undefined) list.head = deadline;
    else list.tail.next = deadline;
    list.tail = deadline;
    if (deadline.at < this.timerAt) this.arm(deadline.at);
    return deadline;
  }

  cancel(deadline: Deadline): void {
    if (deadline.expire === undefined) return;
    deadline.expire = undefined;
    this.unlink(deadline);
  }

  private unlink(deadline: Deadline): void {
    const list = deadline.list;
    if (deadline.previous === undefined) list.head = deadline.next;
    else deadline.previous.next = deadline.next;
    if (deadline.next === undefined) list.tail = deadline.previous;
    else deadline.next.previous = deadline.previous;
    deadline.previous = undefined;
    deadline.next = undefined;
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    // Node takes at most 2^31 - 1 ms (~24.8 days), and makes a longer delay 1 ms with a warning:
    // a deadline beyond it (`--request-timeout=720h`) is reached by firing early and re-arming.
    this.timer = setTimeout(() => this.fire(), Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(at - this.now()))));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    const due: (() => void)[] = [];
    let earliest = Number.POSITIVE_INFINITY;
    for (const [limit, list] of this.lists) {
      for (let deadline = list.head; deadline !== undefined && deadline.at <= now; deadline = list.head) {
        const expire = deadline.expire;
        deadline.expire = undefined;
        this.unlink(deadline);
        if (expire !== undefined) due.push(expire);
      }
      if (list.head === undefined) this.lists.delete(limit);
      else earliest = Math.min(earliest, list.head.at);
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.arm(earliest);
    for (const expire of due) expire();
  }
}

export function timeoutFilter(options: TimeoutFilterOptions): Filter {
  const deadlines = new Deadlines();
  return (next) => async (context) => {
    const info = requireInfo(context);
    if (isLongRunning(info)) return next(context);
    const requested = queryTimeout(context.request.query);
    const limit = requested !== undefined && requested > 0 && requested < options.requestTimeoutMs ? requested : options.requestTimeoutMs;
    if (!(limit > 0)) return next(context);
    // One promise settled by whichever comes first: cheaper per request than Promise.race over a
    // timer promise. The stages below keep the client's signal: a signal of their own that also
    // aborted at the deadline would cost an abort listener per request (several microseconds).
    return new Promise<ApiResponse>((resolve, reject) => {
      let settled = false;
      const deadline = deadlines.add(limit, () => {
        settled = true;
        options.onTimeout?.(context);
        reject(requestTimedOut());
      });
      next(context).then(
        (response) => {
          if (settled) return discard(response);
          settled = true;
          deadlines.cancel(deadline);
          resolve(response);
        },
        (error: unknown) => {
          if (settled) return options.onLateError?.(error);
          settled = true;
          deadlines.cancel(deadline);
          reject(error);
        },
      );
    });
  };
}

/** A response produced after its request was answered: its stream, if any, is ended unread. */
function discard(response: ApiResponse): void {
  const body = response.body;
  if (typeof body === "string" || body instanceof Uint8Array) return;
  const iterator = body[Symbol.asyncIterator]();
  void iterator.return?.()?.catch(() => undefined);
}
