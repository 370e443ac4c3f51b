import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  write,
  writeSync,
} from "node:fs";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
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
  /** Gzip each rotated file to `<backup>.gz`, off the main thread, then remove it (`--audit-log-compress`). */
  readonly compress?: boolean;
  readonly now?: () => number;
}

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
/** The suffix of a compressed backup (lumberjack's). */
const COMPRESSED = ".gz";

/** A rotated file's name: `<name>-<UTC time as 2006-01-02T15-04-05.000><ext>`, as kube's rotation (lumberjack) names it. */
export function backupName(path: string, epochMs: number): string {
  const extension = extname(path);
  const stem = basename(path, extension);
  const stamp = new Date(epochMs).toISOString().slice(0, 23).replace(/:/g, "-");
  return join(dirname(path), `${stem}-${stamp}${extension}`);
}

/**
 * Whole lines as UTF-8 bytes, one growable buffer reused from write to write: each line is
 * encoded once, straight into it, as it is added (no list of strings kept alive until the write,
 * no joined copy, no second pass to count bytes); a write then hands the kernel one byte range.
 * Line ends are kept so a rotation can split between lines.
 */
export class LogLines {
  private buffer: Buffer;
  private used = 0;
  private ends: Uint32Array;
  private lineCount = 0;
  private clears = 0;

  constructor(private readonly initialBytes = LINES_INITIAL_BYTES) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
    this.ends = new Uint32Array(LINES_INITIAL_ENDS);
  }

  /** Lines added since the last clear. */
  get count(): number {
    return this.lineCount;
  }

  get byteLength(): number {
    return this.used;
  }

  /** Adds `line` and a newline after it. */
  add(line: string): void {
    this.text(line);
    this.endLine();
  }

  /**
   * Bumped by `clear`: a byte range of this buffer (`byteLength` before and after a `text` or
   * `bytes`) is valid for `copy` while the generation is the same. A line is built piece by piece
   * (`text`, `bytes`, `copy`) and ended with `endLine`; `abandonLine` drops a line not ended.
   */
  get generation(): number {
    return this.clears;
  }

  /** Appends a piece of the current line as UTF-8. */
  text(piece: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 for 2).
    const room = piece.length * 3;
    if (this.used + room > this.buffer.length) this.grow(this.used + room);
    this.used += this.buffer.write(piece, this.used);
  }

  /** Appends bytes to the current line. */
  bytes(piece: Uint8Array): void {
    if (this.used + piece.length > this.buffer.length) this.grow(this.used + piece.length);
    this.buffer.set(piece, this.used);
    this.used += piece.length;
  }

  /** Appends bytes `start` to `end` already in the buffer (of this generation) to the current line. */
  copy(start: number, end: number): void {
    if (this.used + end - start > this.buffer.length) this.grow(this.used + end - start);
    this.buffer.copyWithin(this.used, start, end);
    this.used += end - start;
  }

  /** Ends the current line with a newline. */
  endLine(): void {
    if (this.used + 1 > this.buffer.length) this.grow(this.used + 1);
    this.buffer[this.used++] = 0x0a;
    if (this.lineCount === this.ends.length) {
      const ends = new Uint32Array(this.ends.length * 2);
      ends.set(this.ends);
      this.ends = ends;
    }
    this.ends[this.lineCount++] = this.used;
  }

  /** Drops the current line's pieces (its encoding failed part way). */
  abandonLine(): void {
    this.used = this.end(this.lineCount - 1);
  }

  /** Forgets the lines; a buffer grown past the usual size for one huge event is let go. */
  clear(): void {
    this.used = 0;
    this.lineCount = 0;
    this.clears++;
    if (this.buffer.length > LINES_KEPT_BYTES) this.buffer = Buffer.allocUnsafe(this.initialBytes);
  }

  /** Where line `index` ends (bytes from the start, its newline included). */
  end(index: number): number {
    return index < 0 ? 0 : (this.ends[index] as number);
  }

  /** Bytes `start` to `end`, not copied: valid until the next add or clear. */
  view(start: number, end: number): Buffer {
    return this.buffer.subarray(start, end);
  }

  private grow(needed: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(bytes, 0, 0, this.used);
    this.buffer = bytes;
  }
}

const LINES_INITIAL_BYTES = 64 * 1024;
const LINES_INITIAL_ENDS = 256;
const LINES_KEPT_BYTES = 1024 * 1024;

/** Lines that go to one file (bytes `start` to `end` of the lines): written, then the file is rotated when `rotate` is set. */
interface Segment {
  readonly start: number;
  readonly end: number;
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
  /** Compressions of rotated files, one after another; pruning follows each. */
  private compressing: Promise<void> = Promise.resolve();

  constructor(options: LogFileOptions) {
    this.options = options;
    this.maxBytes = options.maxBytes === undefined || options.maxBytes <= 0 ? DEFAULT_MAX_BYTES : options.maxBytes;
    this.now = options.now ?? Date.now;
  }

  private get toStdout(): boolean {
    return this.options.path === "-";
  }

  /** Writes the lines before returning (the caller's thread waits on the disk). */
  writeSync(lines: LogLines): void {
    if (this.toStdout) {
      // A copy: standard output may write later, and the lines' buffer is reused.
      process.stdout.write(Buffer.from(lines.view(0, lines.byteLength)));
      return;
    }
    let written = 0;
    try {
      for (const segment of this.plan(lines)) {
        if (segment.end > segment.start) writeAllSync(this.open(), lines.view(segment.start, segment.end));
        written += segment.lines;
        if (segment.rotate) this.rotate();
      }
    } catch (error) {
      throw new LogWriteError(error, written);
    }
  }

  /** Writes the lines off the main thread (libuv's pool); rotation and pruning stay synchronous (rare). */
  async write(lines: LogLines): Promise<void> {
    if (this.toStdout) {
      process.stdout.write(Buffer.from(lines.view(0, lines.byteLength)));
      return;
    }
    let written = 0;
    try {
      for (const segment of this.plan(lines)) {
        if (segment.end > segment.start) await writeAll(this.open(), lines.view(segment.start, segment.end));
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

  /** Resolves once every rotated file handed to compression is compressed (or left as it was after a failure). */
  settled(): Promise<void> {
    return this.compressing;
  }

  /** Splits lines where the file must rotate first; counts their bytes into the file's size. */
  private plan(lines: LogLines): Segment[] {
    this.open();
    // The common case: everything fits in the current file.
    const total = lines.byteLength;
    if (this.size + total <= this.maxBytes) {
      this.size += total;
      return [{ start: 0, end: total, lines: lines.count, rotate: false }];
    }
    const segments: Segment[] = [];
    let start = 0;
    let first = 0;
    for (let index = 0; index < lines.count; index++) {
      const lineStart = lines.end(index - 1);
      const lineEnd = lines.end(index);
      // The line would not fit, and the file already holds something: rotate first.
      if (this.size + lineEnd - start > this.maxBytes && this.size + lineStart - start > 0) {
        segments.push({ start, end: lineStart, lines: index - first, rotate: true });
        start = lineStart;
        first = index;
        // The next file starts empty.
        this.size = 0;
      }
    }
    segments.push({ start, end: total, lines: lines.count - first, rotate: false });
    this.size += total - start;
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
    const backup = backupName(this.options.path, stamp);
    renameSync(this.options.path, backup);
    if (this.options.compress !== true) {
      this.prune();
      return;
    }
    this.compressing = this.compressing.then(async () => {
      try {
        // Written aside and renamed whole: a reader never finds a partial .gz.
        await pipeline(createReadStream(backup), createGzip(), createWriteStream(`${backup}${COMPRESSED}.tmp`, { mode: 0o600 }));
        renameSync(`${backup}${COMPRESSED}.tmp`, `${backup}${COMPRESSED}`);
        unlinkSync(backup);
      } catch {
        // The backup stays uncompressed (as lumberjack leaves it); a partial one is removed.
        rmSync(`${backup}${COMPRESSED}.tmp`, { force: true });
      }
      this.prune();
    });
  }

  private prune(): void {
    const maxBackups = this.options.maxBackups ?? 0;
    const maxAgeDays = this.options.maxAgeDays ?? 0;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const path = this.options.path;
    const extension = extname(path);
    const stem = basename(path, extension);
    const pattern = new RegExp(
      `^${stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3})${extension.replace(/\./g, "\\.")}(?:\\.gz)?$`,
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

/** fs.writeSync until every byte is written (a short write continues where it stopped). */
function writeAllSync(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
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
