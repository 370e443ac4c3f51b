/**
 * Shared pieces of the storage conformance suite.
 */
import assert from "node:assert/strict";
import { isStorageError, type StorageErrorCode } from "../errors.js";
import type { Storage, WatchEvent } from "../interface.js";

export interface CaseContext {
  readonly storage: Storage;
  /** Closes the storage and opens the same data again (registered only for persistent backends). */
  reopen(): Promise<Storage>;
}

export interface ConformanceCase {
  readonly name: string;
  /** Needs CaseContext.reopen. */
  readonly persistent?: boolean;
  run(context: CaseContext): Promise<void>;
}

export async function rejectsWith(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isStorageError(error), `expected StorageError ${code}, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  });
}

/** Reads `count` events from a watch, then aborts it. Fails if the iterator ends early. */
export async function take(storage: Storage, prefix: string, from: number, count: number): Promise<WatchEvent[]> {
  const controller = new AbortController();
  const events: WatchEvent[] = [];
  try {
    if (count === 0) return events;
    for await (const event of storage.watch(prefix, from, controller.signal)) {
      events.push(event);
      if (events.length === count) return events;
    }
    assert.fail(`watch ended after ${events.length} of ${count} events`);
  } finally {
    controller.abort();
  }
}

/** Starts a watch and returns a function that reads the next event (or undefined once the watch ended). */
export function openWatch(storage: Storage, prefix: string, from: number, signal: AbortSignal): () => Promise<WatchEvent | undefined> {
  const iterator = storage.watch(prefix, from, signal)[Symbol.asyncIterator]();
  return async () => {
    const result = await iterator.next();
    return result.done === true ? undefined : result.value;
  };
}

/** A short summary of an event, for deep-equality checks. */
export function brief(event: WatchEvent): string {
  return `${event.revision} ${event.type} ${event.key} ${String(event.value)} <- ${String(event.previous)}`;
}

/** Resolves after pending I/O and immediates have run (lets batched writes flush). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

/** Runs a mixed workload of writes under prefix and returns the events it must produce. */
export async function writeWorkload(storage: Storage, prefix: string, writes: number, label: string): Promise<string[]> {
  const expected: string[] = [];
  const live = new Map<string, string>();
  for (let i = 0; i < writes; i++) {
    const key = `${prefix}${label}-${i % 7}`;
    const before = live.get(key);
    const value = `${label}:${i}`;
    if (before === undefined) {
      const revision = await storage.create(key, value);
      expected.push(`${revision} ADDED ${key} ${value} <- undefined`);
      live.set(key, value);
    } else if (i % 3 === 0) {
      const { revision } = await storage.delete(key);
      expected.push(`${revision} DELETED ${key} undefined <- ${before}`);
      live.delete(key);
    } else {
      const { revision } = await storage.guaranteedUpdate(key, () => value);
      expected.push(`${revision} MODIFIED ${key} ${value} <- ${before}`);
      live.set(key, value);
    }
  }
  return expected;
}
