/**
 * An open-loop writer: starts `call(index)` for index 0…count-1 at `rate` per second on a fixed
 * schedule (a late start does not push the later ones back), with at most `maxInFlight`
 * outstanding. Resolves with the schedule's start (monotonic ms) once every call has settled;
 * `call` must not reject (it records its own failures).
 */
import { monotonicMs } from "./watch-types.js";

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export async function pacedCalls(count: number, rate: number, call: (index: number) => Promise<void>, maxInFlight = Number.POSITIVE_INFINITY): Promise<number> {
  const intervalMs = 1000 / rate;
  const inFlight = new Set<Promise<void>>();
  const start = monotonicMs() + 2;
  for (let index = 0; index < count; ) {
    const wait = start + index * intervalMs - monotonicMs();
    if (wait >= 1) {
      await sleep(Math.floor(wait));
      continue;
    }
    if (inFlight.size >= maxInFlight) {
      await Promise.race(inFlight);
      continue;
    }
    const pending: Promise<void> = call(index).finally(() => inFlight.delete(pending));
    inFlight.add(pending);
    index++;
  }
  await Promise.all(inFlight);
  return start;
}
