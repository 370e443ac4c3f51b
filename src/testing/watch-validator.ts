/**
 * A watch validator for fault and resume tests: it follows one logical watch (one stream, or
 * several streams resumed one after another from the last revision seen) and checks what kube's
 * watch contract promises:
 * - every event's resourceVersion is greater than the one before it (so none repeats), and no
 *   event is at or below a bookmark already delivered;
 * - every acknowledged write the watch should see (its revision is after the watch's start and at
 *   or below what the watch has reached) is seen exactly once, as the right event type and name;
 * - a bookmark never runs ahead of delivered events: every acknowledged write at or below a
 *   bookmark's revision was delivered before that bookmark;
 * - no ERROR event (a resumed watch answered 410 Gone is a gap, not a resume).
 * Events of writes the client never saw acknowledged (in flight at a crash) may appear: they are
 * held to the ordering rules only.
 */

/** A write whose response the client received: what the watch must deliver. */
export interface AcknowledgedWrite {
  readonly name: string;
  /** The resourceVersion the response carried (for a delete, the deleted object's). */
  readonly revision: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
}

/** One decoded watch event, as it came off the stream. */
export interface ObservedEvent {
  readonly type: string;
  readonly object: { readonly metadata?: { readonly name?: unknown; readonly resourceVersion?: unknown } };
}

interface Seen {
  readonly type: string;
  readonly name: string;
  readonly revision: number;
  /** Position in the stream, to tell what came before a bookmark. */
  readonly index: number;
}

export interface WatchValidatorOptions {
  /** The resourceVersion the watch started from: writes at or below it are not expected. */
  readonly startRevision: number;
  /** Which objects the watch selects (default: all acknowledged writes). */
  readonly selects?: (name: string) => boolean;
}

export class WatchValidator {
  private readonly startRevision: number;
  private readonly selects: (name: string) => boolean;
  private readonly events: Seen[] = [];
  private readonly bookmarks: { readonly revision: number; readonly index: number }[] = [];
  private readonly problems: string[] = [];
  /** The highest revision the stream has reached: the last event's or bookmark's. */
  private reached: number;
  private count = 0;
  /** Revision ranges (after, upTo] a client re-listed over after its resume was answered 410. */
  private readonly relists: { readonly after: number; readonly upTo: number }[] = [];

  constructor(options: WatchValidatorOptions) {
    this.startRevision = options.startRevision;
    this.reached = options.startRevision;
    this.selects = options.selects ?? (() => true);
  }

  /** Where a resumed watch starts: the last revision delivered (event or bookmark). */
  get resumeRevision(): number {
    return this.reached;
  }

  /** Events observed so far (bookmarks excluded). */
  get eventCount(): number {
    return this.events.length;
  }

  /** Records one event in stream order and checks the ordering rules at once. */
  observe(event: ObservedEvent): void {
    const index = this.count++;
    const metadata = event.object.metadata ?? {};
    const name = typeof metadata.name === "string" ? metadata.name : "";
    const revision = Number(metadata.resourceVersion);
    if (event.type === "ERROR") {
      this.problems.push(`event #${index}: ERROR ${JSON.stringify(event.object)}`);
      return;
    }
    if (!Number.isSafeInteger(revision) || revision <= 0) {
      this.problems.push(`event #${index}: ${event.type} ${name} has resourceVersion ${String(metadata.resourceVersion)}`);
      return;
    }
    if (event.type === "BOOKMARK") {
      if (revision < this.reached) this.problems.push(`event #${index}: bookmark at ${revision} goes back from ${this.reached}`);
      this.bookmarks.push({ revision, index });
      this.reached = Math.max(this.reached, revision);
      return;
    }
    if (revision <= this.reached) {
      this.problems.push(`event #${index}: ${event.type} ${name} at ${revision} is not after ${this.reached} (out of order or repeated)`);
    }
    this.reached = Math.max(this.reached, revision);
    this.events.push({ type: event.type, name, revision, index });
  }

  /** Re-lists done after a resume answered 410 Gone (kube's contract: the client lists again). */
  get relistCount(): number {
    return this.relists.length;
  }

  /**
   * The client re-listed at `revision` because its resume was answered 410 Gone (the server's
   * window no longer held its revision, as after a restart): writes up to that revision reached
   * it through the list, not as events, and the watch goes on from there.
   */
  relisted(revision: number): void {
    if (revision < this.reached) this.problems.push(`re-list at ${revision} goes back from ${this.reached}`);
    this.relists.push({ after: this.reached, upTo: revision });
    this.reached = Math.max(this.reached, revision);
  }

  /** Records a problem found outside the stream (e.g. a resume answered with an error status). */
  fail(problem: string): void {
    this.problems.push(problem);
  }

  /**
   * Checks the acknowledged writes against what was delivered: each write the watch selects with
   * a revision after its start and at or below `upTo` (default: what the stream reached) must
   * appear once. Returns every violation (ordering ones included); empty means the watch held.
   */
  check(acknowledged: readonly AcknowledgedWrite[], upTo: number = this.reached): string[] {
    const violations = [...this.problems];
    const byRevision = new Map<number, Seen[]>();
    for (const seen of this.events) byRevision.set(seen.revision, [...(byRevision.get(seen.revision) ?? []), seen]);
    for (const write of acknowledged) {
      if (write.revision <= this.startRevision || write.revision > upTo || !this.selects(write.name)) continue;
      if (this.relists.some((relist) => write.revision > relist.after && write.revision <= relist.upTo)) continue;
      const seen = byRevision.get(write.revision) ?? [];
      if (seen.length !== 1) {
        violations.push(`${write.type} ${write.name} at ${write.revision} seen ${seen.length} times (want once)`);
        continue;
      }
      const [event] = seen as [Seen];
      if (event.name !== write.name || event.type !== write.type) {
        violations.push(`at ${write.revision}: want ${write.type} ${write.name}, saw ${event.type} ${event.name}`);
        continue;
      }
      const early = this.bookmarks.find((bookmark) => bookmark.revision >= write.revision && bookmark.index < event.index);
      if (early !== undefined)
        violations.push(`bookmark at ${early.revision} (#${early.index}) came before ${write.type} ${write.name} at ${write.revision} (#${event.index})`);
    }
    return violations;
  }
}
