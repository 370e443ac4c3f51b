import { closeSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, write, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";

export interface LogFileOptions {
  /** The file, or `-` for standard output. */
  readonly path: string;
  /** Rotate before the file would grow past this many bytes (`--audit-log-maxsize` MB; default 100 MB). */
  readonly maxBytes?: number;
  /** Rotated files kept, newest first; 0 keeps all (`--audit-log-maxbackup`). */
  readonly maxBackups?: number;
  /** Rotated files older than this many days are removed; 0 keeps them (`--audit-log-maxage`). */
  readonly maxAgeDays?: number;
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

/** Lines that go to one file: written, then the file is rotated when `rotate` is set. */
interface Segment {
  readonly text: string;
  readonly lines: number;
  readonly rotate: boolean;
}

/** Thrown by a write that failed part way: `written` lines reached the file before it. */
export class LogWriteError extends Error {
  readonly written: number;
  constructor(cause: unknown, written: number) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.written = written;
  }
}

/**
 * The audit log file with kube's size rotation (lumberjack's naming) and pruning by count and
 * age. Lines are whole events, each ending in a newline; a line never straddles two files. One
 * writer at a time: `write` callers wait for the previous call before the next.
 */
export class RotatingLogFile {
  private readonly options: LogFileOptions;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private fd: number | undefined;
  /** Bytes in the current file, including lines planned but not yet written. */
  private size = 0;
  private sized = false;
  private lastBackup = 0;

  constructor(options: LogFileOptions) {
    this.options = options;
    this.maxBytes = options.maxBytes === undefined || options.maxBytes <= 0 ? DEFAULT_MAX_BYTES : options.maxBytes;
    this.now = options.now ?? Date.now;
  }

  private get toStdout(): boolean {
    return this.options.path === "-";
  }

  /** Writes the lines before returning (the caller's thread waits on the disk). */
  writeSync(lines: readonly string[]): void {
    if (this.toStdout) {
      process.stdout.write(lines.join(""));
      return;
    }
    let written = 0;
    try {
      for (const segment of this.plan(lines)) {
        if (segment.text !== "") writeSync(this.open(), segment.text);
        written += segment.lines;
        if (segment.rotate) this.rotate();
      }
    } catch (error) {
      throw new LogWriteError(error, written);
    }
  }

  /** Writes the lines off the main thread (libuv's pool); rotation and pruning stay synchronous (rare). */
  async write(lines: readonly string[]): Promise<void> {
    if (this.toStdout) {
      process.stdout.write(lines.join(""));
      return;
    }
    let written = 0;
    try {
      for (const segment of this.plan(lines)) {
        if (segment.text !== "") await writeAll(this.open(), Buffer.from(segment.text));
        written += segment.lines;
        if (segment.rotate) this.rotate();
      }
    } catch (error) {
      throw new LogWriteError(error, written);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Splits lines where the file must rotate first; counts their bytes into the file's size. */
  private plan(lines: readonly string[]): Segment[] {
    this.open();
    // The common case: everything fits in the current file, one byte count for the whole text.
    const whole = lines.join("");
    const wholeBytes = Buffer.byteLength(whole);
    if (this.size + wholeBytes <= this.maxBytes) {
      this.size += wholeBytes;
      return [{ text: whole, lines: lines.length, rotate: false }];
    }
    const segments: Segment[] = [];
    let text = "";
    let count = 0;
    let bytes = 0;
    for (const line of lines) {
      const lineBytes = Buffer.byteLength(line);
      if (this.size + bytes + lineBytes > this.maxBytes && this.size + bytes > 0) {
        segments.push({ text, lines: count, rotate: true });
        text = "";
        count = 0;
        // The next file starts empty: its size is counted from zero below.
        this.size = -bytes;
      }
      text += line;
      count++;
      bytes += lineBytes;
    }
    segments.push({ text, lines: count, rotate: false });
    this.size += bytes;
    return segments;
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    mkdirSync(dirname(this.options.path), { recursive: true });
    this.fd = openSync(this.options.path, "a", 0o600);
    // Once, for a file that existed before: after a rotation the plan has counted the new file's lines already.
    if (!this.sized) this.size = statSync(this.options.path).size;
    this.sized = true;
    return this.fd;
  }

  private rotate(): void {
    this.close();
    // Two rotations within one millisecond must not overwrite each other's backup.
    const stamp = Math.max(this.now(), this.lastBackup + 1);
    this.lastBackup = stamp;
    renameSync(this.options.path, backupName(this.options.path, stamp));
    this.prune();
  }

  private prune(): void {
    const maxBackups = this.options.maxBackups ?? 0;
    const maxAgeDays = this.options.maxAgeDays ?? 0;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const path = this.options.path;
    const extension = extname(path);
    const stem = basename(path, extension);
    const pattern = new RegExp(
      `^${stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3})${extension.replace(/\./g, "\\.")}$`,
    );
    const backups: { file: string; time: number }[] = [];
    for (const file of readdirSync(dirname(path))) {
      const match = pattern.exec(file);
      if (match === null || match[1] === undefined) continue;
      const [day, clock] = match[1].split("T");
      backups.push({ file: join(dirname(path), file), time: Date.parse(`${day}T${(clock ?? "").replace(/-/g, ":")}Z`) });
    }
    backups.sort((a, b) => b.time - a.time);
    const cutoff = this.now() - maxAgeDays * 86_400_000;
    backups.forEach((backup, index) => {
      if ((maxBackups > 0 && index >= maxBackups) || (maxAgeDays > 0 && backup.time < cutoff)) unlinkSync(backup.file);
    });
  }
}

/** fs.write until every byte is written (a short write continues where it stopped). */
async function writeAll(fd: number, buffer: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    offset += await new Promise<number>((resolve, reject) =>
      write(fd, buffer, offset, buffer.length - offset, null, (error, written) => (error === null ? resolve(written) : reject(error))),
    );
  }
}
