import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** When the collections run, in ms after the first (see releaseStartupHeap). */
const COLLECTIONS_AT_MS = [0, 0, 6000, 7000];

/**
 * A few full garbage collections, soon after start-up. Loading the store into the watch cache
 * leaves the raw rows and parsed copies of every object behind as garbage; an idle server
 * allocates too little to make V8 collect it, so the pages it grew to stay resident. Measured at
 * 10k objects (RSS 171 MB idle with one collection): the first collection frees the objects, the
 * second releases the old-space pages the first left to sweep (old space 62 → 38 MiB for 37 MiB
 * live); V8 shrinks the young generation (32 MiB, grown during the load) only in a collection that
 * sees a low but non-zero allocation rate over its last 5 s, so one more runs 6 s later (the
 * window then holds no start-up work), and a last one unmaps what that shrink gave back (RSS ~105 MB). `gc` is reached through `--expose-gc` set at run time
 * (Node's documented `v8.setFlagsFromString`), read in a fresh context so the global of the
 * program stays as it was, and the flag is set back at once: V8's code cache carries a hash of
 * the flags, so a cache written at exit (scripts/bundle-loader.mjs) with the flag still on would be
 * rejected by every later start (which starts without it), and rewritten, rejected again, forever.
 */
export function releaseStartupHeap(delayMs: number): void {
  for (const offset of COLLECTIONS_AT_MS) {
    const timer = setTimeout(collect, delayMs + offset);
    timer.unref();
  }
}

let exposedGc: unknown;

function collect(): void {
  // Started with --expose-gc: the global is there, and the flags stay as the process was given them.
  if (exposedGc === undefined && typeof (globalThis as { gc?: unknown }).gc === "function") exposedGc = (globalThis as { gc?: unknown }).gc;
  if (exposedGc === undefined) {
    setFlagsFromString("--expose-gc");
    exposedGc = runInNewContext("gc");
    setFlagsFromString("--no-expose-gc");
  }
  if (typeof exposedGc === "function") exposedGc();
}
