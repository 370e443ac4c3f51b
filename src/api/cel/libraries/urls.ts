/**
 * kube's URL library: `url(s)` (an absolute URI or an absolute path), `isURL(s)`, and on a URL
 * `getScheme()`, `getHost()`, `getHostname()`, `getPort()`, `getEscapedPath()`, `getQuery()`.
 * Parsing uses WHATWG `URL`, which is close to Go's `url.ParseRequestURI` for the inputs kube
 * accepts; differences are in exotic escapes only.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

/** A parsed URL; `relative` is set for an absolute path without scheme and host. */
export class CelUrl {
  constructor(
    readonly url: URL,
    readonly relative: boolean,
  ) {}
}

/** Parses as kube's `url()` does; undefined for text it rejects. */
export function parseUrl(text: string): CelUrl | undefined {
  if (text.startsWith("/")) {
    if (text.startsWith("//")) return undefined;
    try {
      return new CelUrl(new URL(text, "http://relative.invalid"), true);
    } catch {
      return undefined;
    }
  }
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) || /\s/.test(text)) return undefined;
  try {
    return new CelUrl(new URL(text), false);
  } catch {
    return undefined;
  }
}

function required(text: string): CelUrl {
  const parsed = parseUrl(text);
  if (parsed === undefined) throw new EvaluationError(`URL parse error during conversion from string: parse ${JSON.stringify(text)}: invalid URI for request`);
  return parsed;
}

function hostname(url: CelUrl): string {
  if (url.relative) return "";
  const name = url.url.hostname;
  return name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
}

/** Registers `kubernetes.URL` and its functions on `env`. */
export function registerUrlLibrary(env: Environment): void {
  env
    .registerType("kubernetes.URL", CelUrl)
    .registerFunction("url(string): kubernetes.URL", required)
    .registerFunction("isURL(string): bool", (text: string) => parseUrl(text) !== undefined)
    .registerFunction("kubernetes.URL.getScheme(): string", (url: CelUrl) => (url.relative ? "" : url.url.protocol.slice(0, -1)))
    .registerFunction("kubernetes.URL.getHost(): string", (url: CelUrl) => (url.relative ? "" : url.url.host))
    .registerFunction("kubernetes.URL.getHostname(): string", hostname)
    .registerFunction("kubernetes.URL.getPort(): string", (url: CelUrl) => (url.relative ? "" : url.url.port))
    .registerFunction("kubernetes.URL.getEscapedPath(): string", (url: CelUrl) => url.url.pathname)
    .registerFunction("kubernetes.URL.getQuery(): map<string, list<string>>", (url: CelUrl) => {
      const query = new Map<string, string[]>();
      for (const [key, value] of url.url.searchParams) query.set(key, [...(query.get(key) ?? []), value]);
      return query;
    });
}
