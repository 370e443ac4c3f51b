import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * One full garbage collection, soon after start-up. Loading the store into the watch cache
 * leaves the raw rows and parsed copies of every object behind as garbage; an idle server
 * allocates too little to make V8 collect it, so the pages it grew to stay resident (at 10k
 * objects about 35 MB of RSS). A single full collection returns them. `gc` is reached through
 * `--expose-gc` set at run time (Node's documented `v8.setFlagsFromString`), read in a fresh
 * context so the global of the program stays as it was.
 */
export function releaseStartupHeap(delayMs: number): void {
  const timer = setTimeout(() => {
    setFlagsFromString("--expose-gc");
    const collect: unknown = runInNewContext("gc");
    if (typeof collect === "function") collect();
  }, delayMs);
  timer.unref();
}
