/**
 * The storage conformance suite: every Storage backend must pass all of it.
 *
 * Usage, from a backend's *.test.ts:
 *   runStorageConformance("sqlite", async () => ({ storage, reopen, cleanup }), { persistent: true });
 *
 * Each case gets a fresh fixture from the factory; the suite closes the storage it used
 * (idempotent close) and then calls cleanup.
 */
import { describe, it } from "node:test";
import type { Storage } from "../interface.js";
import { kvCases } from "./cases-kv.js";
import { watchCases } from "./cases-watch.js";
import type { CaseContext, ConformanceCase } from "./helpers.js";

export interface StorageFixture {
  readonly storage: Storage;
  /**
   * Opens the same data again after the suite closed `storage` (persistent backends).
   * Required when the suite runs with `persistent: true`.
   */
  readonly reopen?: () => Promise<Storage>;
  cleanup(): Promise<void>;
}

export type StorageFactory = () => Promise<StorageFixture>;

export interface ConformanceOptions {
  /**
   * Registers the persistence cases (reopen). They are not registered at all otherwise, so an
   * in-memory backend has no skipped tests.
   */
  readonly persistent?: boolean;
  /** Case name -> reason. Registered as skipped; the project rule is to leave none behind. */
  readonly skip?: Readonly<Record<string, string>>;
}

const CASE_TIMEOUT_MS = 60_000;

export const conformanceCases: readonly ConformanceCase[] = [...kvCases, ...watchCases];

export function runStorageConformance(name: string, factory: StorageFactory, options: ConformanceOptions = {}): void {
  describe(`storage conformance: ${name}`, () => {
    for (const testCase of conformanceCases) {
      if (testCase.persistent === true && options.persistent !== true) continue;
      const skip = options.skip?.[testCase.name];
      if (skip !== undefined) {
        it(testCase.name, { skip });
        continue;
      }
      it(testCase.name, { timeout: CASE_TIMEOUT_MS }, async () => {
        const fixture = await factory();
        let current = fixture.storage;
        const context: CaseContext = {
          storage: current,
          async reopen() {
            if (fixture.reopen === undefined) throw new Error(`${name}: persistent cases need the fixture to provide reopen`);
            await current.close();
            current = await fixture.reopen();
            return current;
          },
        };
        try {
          await testCase.run(context);
        } finally {
          await current.close();
          await fixture.cleanup();
        }
      });
    }
  });
}
