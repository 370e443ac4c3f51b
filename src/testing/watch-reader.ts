import type { ApiResponse } from "../request/context.js";

export interface WatchLine {
  readonly type: string;
  readonly object: Record<string, unknown> & { metadata?: Record<string, unknown> };
}

/**
 * Reads a streamed watch response line by line. `next(n)` resolves with the next n events, or
 * rejects after `timeoutMs`; `rest()` drains what is left once the stream ends.
 */
export class WatchReader {
  private readonly iterator: AsyncIterator<string | Uint8Array>;
  private buffer = "";
  private readonly events: WatchLine[] = [];
  private done = false;

  constructor(response: ApiResponse) {
    const body = response.body;
    if (typeof body === "string" || body instanceof Uint8Array) throw new Error(`not a stream: ${typeof body === "string" ? body : "bytes"}`);
    this.iterator = body[Symbol.asyncIterator]();
  }

  private async pull(): Promise<boolean> {
    const step = await this.iterator.next();
    if (step.done === true) {
      this.done = true;
      return false;
    }
    this.buffer += typeof step.value === "string" ? step.value : Buffer.from(step.value).toString("utf8");
    let index: number;
    while ((index = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, index);
      this.buffer = this.buffer.slice(index + 1);
      if (line.trim() !== "") this.events.push(JSON.parse(line) as WatchLine);
    }
    return true;
  }

  async next(count: number, timeoutMs = 5000): Promise<WatchLine[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length < count) {
      if (this.done) throw new Error(`stream ended after ${this.events.length} of ${count} events: ${JSON.stringify(this.events.map((event) => event.type))}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out with ${this.events.length} of ${count} events`);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), remaining);
      });
      const result = await Promise.race([this.pull(), timedOut]);
      clearTimeout(timer);
      if (result === "timeout")
        throw new Error(`timed out with ${this.events.length} of ${count} events: ${JSON.stringify(this.events.map((event) => event.type))}`);
    }
    return this.events.splice(0, count);
  }

  /** Everything until the stream ends (it must end within timeoutMs). */
  async rest(timeoutMs = 5000): Promise<WatchLine[]> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    try {
      while (!this.done) {
        if ((await Promise.race([this.pull(), timedOut])) === "timeout") throw new Error(`stream did not end within ${timeoutMs} ms`);
      }
    } finally {
      clearTimeout(timer);
    }
    return this.events.splice(0);
  }

  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

export function nameOf(event: WatchLine): string {
  return String(event.object.metadata?.["name"] ?? "");
}

export function versionOf(event: WatchLine): string {
  return String(event.object.metadata?.["resourceVersion"] ?? "");
}
