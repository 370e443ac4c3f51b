import { type FSWatcher, realpathSync, statSync, watch } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname } from "node:path";

export interface FileWatcher {
  stop(): void;
}

export interface WatchFilesOptions {
  /** A look at every file this often whatever the events say (kube's file refresh: 1 minute). */
  readonly resyncMs?: number;
  /** How often to look while a directory cannot be watched (missing, or no inotify): the old polling. */
  readonly pollMs?: number;
  /** How long events settle before the files are read (an editor writes in several steps). */
  readonly settleMs?: number;
}

function signature(stats: { mtimeMs: number; size: number; ino: number } | undefined): string {
  return stats === undefined ? "missing" : `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
}

function statNow(path: string): string {
  try {
    return signature(statSync(path));
  } catch {
    return signature(undefined);
  }
}

/** The directories whose entries decide what `path` reads: its own, and its target's when it is a symlink elsewhere. */
function directoriesOf(path: string): string[] {
  const directories = [dirname(path)];
  try {
    const target = dirname(realpathSync(path));
    if (target !== directories[0]) directories.push(target);
  } catch {
    // Missing for now: its own directory's events tell when it appears.
  }
  return directories;
}

/**
 * Calls `onChange` with the files (of `paths`) whose modification time, size or inode changed
 * since the last look, so editors' and tools' rename-into-place updates and Kubernetes' secret
 * volume symlink swaps are seen. Event-driven: the files' directories are watched (inotify on
 * Linux), so nothing runs while nothing changes, except one look every `resyncMs` as a safety
 * net (events can be lost; kube refreshes such files every minute too). A directory that cannot be
 * watched falls back to a look every `pollMs` until it can. `onChange` must handle its own
 * errors. Nothing here keeps the process alive.
 */
export function watchFiles(paths: readonly string[], onChange: (changed: readonly string[]) => void, options: WatchFilesOptions = {}): FileWatcher {
  const resyncMs = options.resyncMs ?? 60_000;
  const pollMs = options.pollMs ?? 1000;
  const settleMs = options.settleMs ?? 20;
  const unique = [...new Set(paths)];
  const seen = new Map(unique.map((path) => [path, statNow(path)]));
  const watchers = new Map<string, FSWatcher>();
  let stopped = false;
  let busy = false;
  let again = false;
  let settle: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;

  const look = (): void => {
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    void Promise.all(unique.map(async (path) => [path, signature(await stat(path).catch(() => undefined))] as const))
      .then((current) => {
        const changed = current.filter(([path, now]) => seen.get(path) !== now).map(([path]) => path);
        for (const [path, now] of current) seen.set(path, now);
        // A replaced symlink may now point into another directory.
        if (changed.length > 0) follow();
        if (changed.length > 0 && !stopped) onChange(changed);
      })
      // onChange reports its own failures (it logs and keeps the previous material).
      .catch(() => {})
      .finally(() => {
        busy = false;
        if (again) {
          again = false;
          look();
        }
      });
  };

  const onEvent = (): void => {
    if (settle !== undefined || stopped) return;
    settle = setTimeout(() => {
      settle = undefined;
      look();
    }, settleMs);
    settle.unref();
  };

  /** Watches every directory that matters now; true when all of them could be watched. */
  function follow(): boolean {
    let all = true;
    for (const directory of new Set(unique.flatMap(directoriesOf))) {
      if (watchers.has(directory)) continue;
      try {
        const watcher = watch(directory, { persistent: false }, onEvent);
        watcher.on("error", () => {
          // The directory went (or was replaced): poll until it can be watched again.
          watcher.close();
          watchers.delete(directory);
          startPolling();
        });
        watchers.set(directory, watcher);
      } catch {
        all = false;
      }
    }
    return all;
  }

  function startPolling(): void {
    if (poll !== undefined || stopped) return;
    poll = setInterval(() => {
      look();
      if (follow()) {
        clearInterval(poll);
        poll = undefined;
      }
    }, pollMs);
    poll.unref();
  }

  if (!follow()) startPolling();
  const resync = setInterval(look, resyncMs);
  resync.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(resync);
      clearInterval(poll);
      clearTimeout(settle);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
