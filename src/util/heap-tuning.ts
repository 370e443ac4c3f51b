import { setFlagsFromString } from "node:v8";

const PRETENURING = "allocation-site-pretenuring";

/**
 * Turns off V8's allocation-site pretenuring for the server process, unless the process was
 * started with an explicit `--[no-]allocation-site-pretenuring` (node's argv or NODE_OPTIONS).
 *
 * Why: V8 moves the allocations of an object or array literal straight into the old generation
 * once its feedback says most of them outlive a young collection. Under sustained concurrent load
 * that feedback misleads it about request-scoped objects (the HTTP parser's headers, the request
 * and response wrappers): once they are pretenured, every request's short-lived objects fill the
 * old generation and each few thousand requests cost a full mark-compact. Measured on audited GETs
 * (docs/architecture.md, "V8's pretenuring"): without it the old generation stays flat and a GET
 * takes ~0.8–0.9× the server CPU, audited or not. Objects that do live long (the watch cache) are
 * promoted after two young collections as before.
 *
 * V8's code cache carries a hash of the flags, so the flag is set back at exit before the bundle's
 * loader writes its cache (an `exit` listener put first): a cache written with the flag changed
 * would be rejected by every later start, which reads it before this runs.
 *
 * Returns whether the flag was changed.
 */
export function tuneHeap(execArgv: readonly string[] = process.execArgv, nodeOptions: string = process.env["NODE_OPTIONS"] ?? ""): boolean {
  const explicit = (text: string): boolean => text.replaceAll("_", "-").includes(PRETENURING);
  if (execArgv.some(explicit) || explicit(nodeOptions)) return false;
  setFlagsFromString(`--no-${PRETENURING}`);
  process.prependOnceListener("exit", () => setFlagsFromString(`--${PRETENURING}`));
  return true;
}
