import type { ResponseBody } from "./context.js";
import { isPushBody, type PushBody } from "./push-body.js";

/**
 * The same body, calling `done` once when it has been written or abandoned: a pushed body when
 * its `pipeTo` settles, an iterated one when the iteration ends (finished, failed or returned).
 * Bytes are passed through untouched.
 */
export function onStreamEnd(body: Exclude<ResponseBody, string | Uint8Array>, done: () => void): ResponseBody {
  let called = false;
  const finish = (): void => {
    if (called) return;
    called = true;
    done();
  };
  async function* iterate(): AsyncGenerator<string | Uint8Array> {
    try {
      yield* body;
    } finally {
      finish();
    }
  }
  if (!isPushBody(body)) return iterate();
  const pushed: PushBody = {
    async pipeTo(sink) {
      try {
        await body.pipeTo(sink);
      } finally {
        finish();
      }
    },
    [Symbol.asyncIterator]: () => iterate() as AsyncIterator<Uint8Array>,
  };
  return pushed;
}

/** The same body, calling `done` once with the bytes that went through it when it has been written or abandoned. */
export function measureStream(body: Exclude<ResponseBody, string | Uint8Array>, done: (bytes: number) => void): ResponseBody {
  let bytes = 0;
  const count = (chunk: string | Uint8Array): void => {
    bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
  };
  async function* iterate(): AsyncGenerator<string | Uint8Array> {
    for await (const chunk of body) {
      count(chunk);
      yield chunk;
    }
  }
  if (!isPushBody(body)) return onStreamEnd(iterate(), () => done(bytes));
  const pushed: PushBody = {
    async pipeTo(sink) {
      await body.pipeTo({
        write: (chunk) => {
          count(chunk);
          return sink.write(chunk);
        },
        onDrain: (listener) => sink.onDrain(listener),
      });
    },
    [Symbol.asyncIterator]: () => iterate() as AsyncIterator<Uint8Array>,
  };
  return onStreamEnd(pushed, () => done(bytes));
}
