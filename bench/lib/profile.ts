/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`) and ranks functions by self time and by
 * total (inclusive) time. Locations in the compiled server (dist/src/*.js) are mapped back to
 * src/*.ts through the emitted source maps.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { round } from "./stats.js";

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  readonly function: string;
  readonly location: string;
  readonly selfMs: number;
  /** Of the busy (non-idle) time. */
  readonly selfPercent: number;
  readonly totalMs: number;
  readonly totalPercent: number;
}

export interface ProfileSummary {
  readonly profiledMs: number;
  readonly busyMs: number;
  readonly gcPercent: number;
  /** Busy time by origin: the server's own code, node internals, node_modules, native (program/GC). */
  readonly byOriginPercent: Readonly<Record<string, number>>;
  readonly topSelf: readonly ProfileEntry[];
  readonly topSrcSelf: readonly ProfileEntry[];
  readonly topSrcTotal: readonly ProfileEntry[];
  readonly srcFilesSelf: readonly { readonly file: string; readonly selfMs: number; readonly selfPercent: number }[];
}

const sourceMaps = new Map<string, SourceMap | undefined>();

function sourceMapFor(jsPath: string): SourceMap | undefined {
  if (!sourceMaps.has(jsPath)) {
    const mapPath = `${jsPath}.map`;
    sourceMaps.set(jsPath, existsSync(mapPath) ? new SourceMap(JSON.parse(readFileSync(mapPath, "utf8")) as SourceMapPayload) : undefined);
  }
  return sourceMaps.get(jsPath);
}

function origin(url: string): string {
  if (url === "") return "native";
  if (url.startsWith("node:")) return "node internals";
  if (url.includes("/node_modules/")) return "node_modules";
  if (url.includes("/dist/src/")) return "src";
  return "other";
}

/** `src/server/http-server.ts:123` for the server's code; the URL and line otherwise. */
function locate(frame: CallFrame, repoRoot: string): string {
  if (frame.url === "") return "";
  if (frame.url.includes("/dist/src/") && frame.url.startsWith("file:")) {
    const jsPath = fileURLToPath(frame.url);
    const map = sourceMapFor(jsPath);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
      // Sources in the map are relative to the compiled file's directory.
      const source = entry.originalSource.startsWith("file:") ? fileURLToPath(entry.originalSource) : resolve(dirname(jsPath), entry.originalSource);
      return `${relative(repoRoot, source)}:${entry.originalLine + 1}`;
    }
    return `${relative(repoRoot, jsPath)}:${frame.lineNumber + 1}`;
  }
  const path = frame.url.startsWith("file:") ? relative(repoRoot, fileURLToPath(frame.url)) : frame.url;
  return `${path}:${frame.lineNumber + 1}`;
}

/** Which samples count: those taken in [fromUs, toUs] of the monotonic clock (process.hrtime, in µs). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

export function analyseProfile(path: string, repoRoot: string, window?: ProfileWindow, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const keyOf = (frame: CallFrame): string => `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}\u0000${frame.columnNumber}`;
  const selfUs = new Map<string, number>();
  const totalUs = new Map<string, number>();
  const frames = new Map<string, CallFrame>();
  let idleUs = 0;
  let gcUs = 0;
  let allUs = 0;
  const originUs: Record<string, number> = {};
  const { samples, timeDeltas } = profile;
  let timestamp = profile.startTime;
  for (let index = 0; index < samples.length; index++) {
    timestamp += timeDeltas[index] ?? 0;
    if (window !== undefined && (timestamp < window.fromUs || timestamp > window.toUs)) continue;
    // A sample lasts until the next one.
    const duration = timeDeltas[index + 1] ?? 0;
    const node = byId.get(samples[index] ?? -1);
    if (node === undefined || duration <= 0) continue;
    allUs += duration;
    const name = node.callFrame.functionName;
    if (name === "(idle)") {
      idleUs += duration;
      continue;
    }
    if (name === "(garbage collector)") gcUs += duration;
    const key = keyOf(node.callFrame);
    frames.set(key, node.callFrame);
    selfUs.set(key, (selfUs.get(key) ?? 0) + duration);
    const from = origin(node.callFrame.url);
    originUs[from] = (originUs[from] ?? 0) + duration;
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (frame === undefined) break;
      const frameKey = keyOf(frame);
      if (seen.has(frameKey)) continue;
      seen.add(frameKey);
      frames.set(frameKey, frame);
      totalUs.set(frameKey, (totalUs.get(frameKey) ?? 0) + duration);
    }
  }
  const busyUs = Math.max(1, allUs - idleUs);
  const entry = (key: string): ProfileEntry => {
    const frame = frames.get(key) as CallFrame;
    const self = selfUs.get(key) ?? 0;
    const total = totalUs.get(key) ?? 0;
    return {
      function: frame.functionName === "" ? "(anonymous)" : frame.functionName,
      location: locate(frame, repoRoot),
      selfMs: round(self / 1000),
      selfPercent: round((self / busyUs) * 100),
      totalMs: round(total / 1000),
      totalPercent: round((total / busyUs) * 100),
    };
  };
  const isSrc = (key: string): boolean => origin(frames.get(key)?.url ?? "") === "src";
  const bySelf = [...selfUs.keys()].sort((a, b) => (selfUs.get(b) ?? 0) - (selfUs.get(a) ?? 0));
  const byTotal = [...totalUs.keys()].filter(isSrc).sort((a, b) => (totalUs.get(b) ?? 0) - (totalUs.get(a) ?? 0));
  const fileUs = new Map<string, number>();
  for (const key of bySelf.filter(isSrc)) {
    const file = entry(key).location.replace(/:\d+$/, "");
    fileUs.set(file, (fileUs.get(file) ?? 0) + (selfUs.get(key) ?? 0));
  }
  return {
    profiledMs: round(allUs / 1000),
    busyMs: round(busyUs / 1000),
    gcPercent: round((gcUs / busyUs) * 100),
    byOriginPercent: Object.fromEntries(Object.entries(originUs).map(([name, us]) => [name, round((us / busyUs) * 100)])),
    topSelf: bySelf.slice(0, top).map(entry),
    topSrcSelf: bySelf.filter(isSrc).slice(0, top).map(entry),
    topSrcTotal: byTotal.slice(0, top).map(entry),
    srcFilesSelf: [...fileUs.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([file, us]) => ({ file, selfMs: round(us / 1000), selfPercent: round((us / busyUs) * 100) })),
  };
}
