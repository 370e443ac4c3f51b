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
