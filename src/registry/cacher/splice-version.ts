/**
 * The cached JSON of a stored object without encoding it again (issue #21: loading 100,000
 * objects spent about a tenth of the restart in JSON.stringify). A stored value is
 * `JSON.stringify` output whose metadata has no `resourceVersion` (`encodeForStorage`), and
 * decoding it only parses and appends `metadata.resourceVersion`; `JSON.stringify` of that object
 * is then the stored text with `,"resourceVersion":"<rv>"` before the metadata's closing brace
 * (stringify(parse(stringify(x))) is stringify(x): same key order, same escapes, same numbers).
 * This finds that brace by scanning the top-level keys up to `metadata` (never the rest of the
 * object) and answers undefined, for the caller to stringify, whenever the text is not of that
 * shape: not an object, no `metadata` object, or a `resourceVersion` key already in it.
 */
export function spliceResourceVersion(text: string, resourceVersion: string): string | undefined {
  const metadata = metadataRange(text);
  if (metadata === undefined) return undefined;
  const { start, end } = metadata;
  const existing = text.indexOf('"resourceVersion":', start);
  if (existing >= 0 && existing < end) return undefined;
  const separator = end === start + 1 ? "" : ",";
  // join builds one flat string; a concatenation would keep a rope of slices of `text` per cached object.
  return [text.slice(0, end), separator, '"resourceVersion":', JSON.stringify(resourceVersion), text.slice(end)].join("");
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where the top-level `metadata` object of compact JSON opens (`{`) and closes (`}`), if it has one. */
export function metadataRange(text: string): { readonly start: number; readonly end: number } | undefined {
  const start = metadataOpen(text);
  if (start === undefined) return undefined;
  const end = skipValue(text, start);
  return end < 0 ? undefined : { start, end: end - 1 };
}

/** Where the top-level `metadata` object of compact JSON opens (`{`), the keys before it skipped, the metadata itself not read. */
function metadataOpen(text: string): number | undefined {
  if (text.charCodeAt(0) !== OPEN_BRACE) return undefined;
  let index = 1;
  while (index < text.length) {
    if (text.charCodeAt(index) !== QUOTE) return undefined;
    const keyEnd = skipString(text, index);
    if (keyEnd < 0 || text.charCodeAt(keyEnd) !== COLON) return undefined;
    if (keyEnd - index === 10 && text.startsWith('"metadata"', index)) return text.charCodeAt(keyEnd + 1) === OPEN_BRACE ? keyEnd + 1 : undefined;
    const valueEnd = skipValue(text, keyEnd + 1);
    if (valueEnd < 0 || text.charCodeAt(valueEnd) !== COMMA) return undefined;
    index = valueEnd + 1;
  }
  return undefined;
}

/** `index` at a string's opening quote: the index after its closing quote, or -1. */
function skipString(text: string, index: number): number {
  let quote = text.indexOf('"', index + 1);
  while (quote >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** The index after the JSON value starting at `index` (compact: no whitespace), or -1. */
function skipValue(text: string, index: number): number {
  const first = text.charCodeAt(index);
  if (first === QUOTE) return skipString(text, index);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let end = index;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET) break;
      end++;
    }
    return end > index && end < text.length ? end : -1;
  }
  let depth = 0;
  let at = index;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = skipString(text, at);
      if (at < 0) return -1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return at + 1;
    }
    at++;
  }
  return -1;
}

/**
 * The named top-level fields of the `metadata` of compact JSON, each parsed on its own and the
 * rest skipped unparsed (a follower reading a few fields of every object does not build each
 * object's labels, annotations and managedFields); undefined when the text is not of that shape.
 */
export function metadataFields(text: string, names: ReadonlySet<string>): Record<string, unknown> | undefined {
  // One pass over the metadata's keys, which ends at its closing brace (not a pass to find that brace first).
  const start = metadataOpen(text);
  if (start === undefined) return undefined;
  const fields: Record<string, unknown> = {};
  if (text.charCodeAt(start + 1) === CLOSE_BRACE) return fields;
  let index = start + 1;
  while (index < text.length) {
    if (text.charCodeAt(index) !== QUOTE) return undefined;
    const keyEnd = skipString(text, index);
    if (keyEnd < 0 || text.charCodeAt(keyEnd) !== COLON) return undefined;
    const rawKey = text.slice(index + 1, keyEnd - 1);
    const name = rawKey.includes("\\") ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
    const valueEnd = skipValue(text, keyEnd + 1);
    if (valueEnd < 0) return undefined;
    if (names.has(name)) fields[name] = JSON.parse(text.slice(keyEnd + 1, valueEnd));
    const next = text.charCodeAt(valueEnd);
    if (next === CLOSE_BRACE) return fields;
    if (next !== COMMA) return undefined;
    index = valueEnd + 1;
  }
  return undefined;
}
