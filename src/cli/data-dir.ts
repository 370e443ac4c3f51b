import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Profile } from "../api/profile.js";
import { DamagedStoreError, damagedStoreError, SqliteStorage } from "../storage/sqlite/sqlite-storage.js";

/** A start-up refusal the CLI prints as one line (no stack trace) before exiting 1. */
export class StartupError extends Error {}

const LOCK = "server.pid";
const PROFILE = "compat";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is not ours.
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}

/**
 * Claims the data dir for this process: `<dataDir>/server.pid`, created exclusively. A live
 * owner makes this fail at once with "data dir in use by pid N" (a second server would
 * otherwise wait on the store's lock and die with a trace); a dead owner's file is taken over.
 * Returns the release, which removes the file if it is still this process's.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        if (existsSync(path) && readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
      };
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
      const owner = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
      if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) throw new StartupError(`data dir ${dataDir} in use by pid ${owner}`);
      if (owner === process.pid) throw new StartupError(`data dir ${dataDir} in use by pid ${owner} (this process: one server per data dir)`);
      rmSync(path, { force: true });
    }
  }
  throw new StartupError(`data dir ${dataDir}: could not claim ${LOCK}`);
}

/**
 * A data dir remembers the `--compat` profile it was made under (`<dataDir>/compat`): its
 * namespaces, RBAC objects, certificates' admin user and groups are spelled that way, so
 * starting it under the other profile would mix both. That is refused with the flag to use.
 */
export function checkDataDirProfile(dataDir: string, profile: Profile): void {
  const path = join(dataDir, PROFILE);
  if (!existsSync(path)) {
    writeFileSync(path, `${profile.name}\n`, { mode: 0o600 });
    return;
  }
  const recorded = readFileSync(path, "utf8").trim();
  if (recorded !== profile.name)
    throw new StartupError(
      `data dir ${dataDir} was created with --compat ${recorded}; start it with --compat ${recorded}, or use another --data-dir for --compat ${profile.name}`,
    );
}

function sizeOf(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/**
 * Opens `<dataDir>/store.db`. Refused with a StartupError: a damaged store (see
 * `SqliteStorage.open`), and a missing or empty one in a data dir a server has already served
 * from (its `admin.kubeconfig` is there): starting empty would serve a cluster without its objects.
 */
export function openDataDirStore(dataDir: string): SqliteStorage {
  const path = join(dataDir, "store.db");
  if (sizeOf(path) === 0 && sizeOf(`${path}-wal`) === 0 && existsSync(join(dataDir, "admin.kubeconfig"))) {
    throw new StartupError(
      `data dir ${dataDir} has served before but its store ${path} is missing or empty; restore it from a snapshot (snapshot restore), or remove admin.kubeconfig to start empty`,
    );
  }
  try {
    return SqliteStorage.open(path);
  } catch (error) {
    if (error instanceof DamagedStoreError) throw new StartupError(error.message, { cause: error });
    throw error;
  }
}

/**
 * The refusal of a data dir whose store opened sound (quick_check passes) but holds a value that
 * cannot be whole: found as the watch cache reads the store at start-up (`StoredValueError`; a
 * page torn by a crash reads back as NULs), refused with the message of a store found damaged on open.
 */
export function damagedDataDirStore(dataDir: string, cause: Error): StartupError {
  return new StartupError(damagedStoreError(join(dataDir, "store.db"), cause).message, { cause });
}
