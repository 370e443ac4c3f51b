/**
 * The push side of a streamed response body. Watches served from the cache write their chunks
 * straight into the listener's response (`pipeTo`) instead of being pulled chunk by chunk through
 * async iterators: fanning an event out to a thousand watchers is then a loop of writes, with no
 * promise per watcher. Every `PushBody` is also an `AsyncIterable` for any other reader (the
 * in-process test server, a listener that does not know the push side).
 */
export interface ChunkSink {
  /** Writes one chunk; false when the receiver's buffer is full: write nothing more until a drain. */
  write(chunk: Uint8Array): boolean;
  /** Calls `listener` each time the sink can take more after a `write` returned false; returns the unsubscribe. */
  onDrain(listener: () => void): () => void;
}

export interface PushBody extends AsyncIterable<Uint8Array> {
  /**
   * Streams into `sink` until the stream ends, honouring backpressure. Resolves once the stream
   * has ended: everything written, or abandoned after the request's abort signal (client gone,
   * server stopping). The caller ends the response then. Called at most once, and not together
   * with iteration.
   */
  pipeTo(sink: ChunkSink): Promise<void>;
}

export function isPushBody(body: unknown): body is PushBody {
  return typeof body === "object" && body !== null && typeof (body as { pipeTo?: unknown }).pipeTo === "function";
}
