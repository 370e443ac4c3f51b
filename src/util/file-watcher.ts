import { statSync } from "node:fs";
import { stat } from "node:fs/promises";

export interface FileWatcher {
  stop(): void;
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

/**
 * Polls files (modification time, size, inode: so editors' and tools' rename-into-place
 * updates are seen) every `intervalMs` and calls `onChange` with the paths that changed since
 * the last look. `onChange` must handle its own errors. Polling rather than fs.watch: it survives the file being replaced, and a
 * handful of stats a second cost nothing. The timer does not keep the process alive.
 */
export function watchFiles(paths: readonly string[], onChange: (changed: readonly string[]) => void, intervalMs = 1000): FileWatcher {
  const unique = [...new Set(paths)];
  const seen = new Map(unique.map((path) => [path, statNow(path)]));
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void Promise.all(unique.map(async (path) => [path, signature(await stat(path).catch(() => undefined))] as const))
      .then((current) => {
        const changed = current.filter(([path, now]) => seen.get(path) !== now).map(([path]) => path);
        for (const [path, now] of current) seen.set(path, now);
        if (changed.length > 0) onChange(changed);
      })
      // onChange reports its own failures (it logs and keeps the previous material).
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
