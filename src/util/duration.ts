const UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration (`500ms`, `3s`, `1h30m`, `0`) into milliseconds.
 * Returns undefined for anything Go's time.ParseDuration would reject.
 */
export function parseDuration(text: string): number | undefined {
  const input = text.trim();
  if (input === "0") return 0;
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(input);
  if (match === null) return undefined;
  const sign = match[1] === "-" ? -1 : 1;
  let total = 0;
  for (const part of input.slice(match[1]?.length ?? 0).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    const unit = UNITS_MS[part[2] ?? ""];
    if (unit === undefined) return undefined;
    total += Number(part[1]) * unit;
  }
  return sign * total;
}
