/**
 * One read shared by every caller that asked before it was sent: at most one read is in flight;
 * callers that arrive meanwhile wait for it to end and share the next one, which is sent then.
 * A caller therefore never gets an answer from a read that was sent before the caller asked, so a
 * linearizable read stays linearizable for each caller (kube batches its consistent-read revision
 * requests the same way). A failed read fails exactly the callers that shared it.
 */
export class CoalescedRead<T> {
  private readonly read: () => Promise<T>;
  private inFlight = false;
  /** Callers waiting for the next read to be sent. */
  private waiting: { resolve: (value: T) => void; reject: (error: unknown) => void }[] = [];

  constructor(read: () => Promise<T>) {
    this.read = read;
  }

  /** The result of a read sent at or after this call. */
  next(): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.inFlight) this.send();
    });
  }

  private send(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.inFlight = true;
    const done = (): void => {
      this.inFlight = false;
      if (this.waiting.length > 0) this.send();
    };
    let started: Promise<T>;
    try {
      started = this.read();
    } catch (error) {
      started = Promise.reject(error);
    }
    started.then(
      (value) => {
        done();
        for (const caller of batch) caller.resolve(value);
      },
      (error: unknown) => {
        done();
        for (const caller of batch) caller.reject(error);
      },
    );
  }
}
