import { closeSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import type { AuditBackend, AuditEvent } from "./event.js";

export interface LogBackendOptions {
  /** The file, or `-` for standard output. */
  readonly path: string;
  /** Rotate before the file would grow past this many bytes (`--audit-log-maxsize` MB; default 100 MB). */
  readonly maxBytes?: number;
  /** Rotated files kept, newest first; 0 keeps all (`--audit-log-maxbackup`). */
  readonly maxBackups?: number;
  /** Rotated files older than this many days are removed; 0 keeps them (`--audit-log-maxage`). */
  readonly maxAgeDays?: number;
  /** Counts events that could not be written. */
  readonly onError?: (error: unknown, dropped: number) => void;
  readonly now?: () => number;
}

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** A rotated file's name: `<name>-<UTC time as 2006-01-02T15-04-05.000><ext>`, as kube's rotation (lumberjack) names it. */
export function backupName(path: string, epochMs: number): string {
  const extension = extname(path);
  const stem = basename(path, extension);
  const stamp = new Date(epochMs).toISOString().slice(0, 23).replace(/:/g, "-");
  return join(dirname(path), `${stem}-${stamp}${extension}`);
}

/**
 * The log backend (`--audit-log-path`, `--audit-log-format json`): one JSON event per line.
 * Events are queued and written together once per turn of the event loop, so a request never
 * waits on the disk; the file is rotated by size, and old backups are pruned by count and age.
 */
export function logBackend(options: LogBackendOptions): AuditBackend {
  const toStdout = options.path === "-";
  const maxBytes = options.maxBytes === undefined || options.maxBytes <= 0 ? DEFAULT_MAX_BYTES : options.maxBytes;
  const now = options.now ?? Date.now;
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let fd: number | undefined;
  let size = 0;
  let lastBackup = 0;

  function open(): number {
    if (fd !== undefined) return fd;
    mkdirSync(dirname(options.path), { recursive: true });
    fd = openSync(options.path, "a", 0o600);
    size = statSync(options.path).size;
    return fd;
  }

  function prune(): void {
    const maxBackups = options.maxBackups ?? 0;
    const maxAgeDays = options.maxAgeDays ?? 0;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const extension = extname(options.path);
    const stem = basename(options.path, extension);
    const pattern = new RegExp(
      `^${stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3})${extension.replace(/\./g, "\\.")}$`,
    );
    const backups: { file: string; time: number }[] = [];
    for (const file of readdirSync(dirname(options.path))) {
      const match = pattern.exec(file);
      if (match === null || match[1] === undefined) continue;
      const [day, clock] = match[1].split("T");
      backups.push({ file: join(dirname(options.path), file), time: Date.parse(`${day}T${(clock ?? "").replace(/-/g, ":")}Z`) });
    }
    backups.sort((a, b) => b.time - a.time);
    const cutoff = now() - maxAgeDays * 86_400_000;
    backups.forEach((backup, index) => {
      if ((maxBackups > 0 && index >= maxBackups) || (maxAgeDays > 0 && backup.time < cutoff)) unlinkSync(backup.file);
    });
  }

  function rotate(): void {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    // Two rotations within one millisecond must not overwrite each other's backup.
    const stamp = Math.max(now(), lastBackup + 1);
    lastBackup = stamp;
    renameSync(options.path, backupName(options.path, stamp));
    prune();
  }

  function flush(): void {
    scheduled = undefined;
    const lines = pending;
    pending = [];
    if (lines.length === 0) return;
    if (toStdout) {
      process.stdout.write(lines.join(""));
      return;
    }
    let written = 0;
    try {
      let chunk: string[] = [];
      let chunkBytes = 0;
      const writeChunk = (): void => {
        if (chunk.length === 0) return;
        writeSync(open(), chunk.join(""));
        size += chunkBytes;
        written += chunk.length;
        chunk = [];
        chunkBytes = 0;
      };
      open();
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        if (size + chunkBytes + bytes > maxBytes && size + chunkBytes > 0) {
          writeChunk();
          rotate();
          open();
        }
        chunk.push(line);
        chunkBytes += bytes;
      }
      writeChunk();
    } catch (error) {
      options.onError?.(error, lines.length - written);
    }
  }

  return {
    name: "log",
    processEvents(events: readonly AuditEvent[]) {
      for (const event of events) pending.push(`${JSON.stringify(event)}\n`);
      scheduled ??= setImmediate(flush);
    },
    async shutdown() {
      if (scheduled !== undefined) clearImmediate(scheduled);
      flush();
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
