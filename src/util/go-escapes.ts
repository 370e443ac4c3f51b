/** The characters Go's quoting (strconv.Quote, cel-go's strings.quote) writes as C-style escapes, and their escapes. */
export const GO_C_ESCAPES: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/** Characters Go's `%q` writes escaped: controls, DEL, the quote, the backslash, lone surrogates. */
const NEEDS_GO_ESCAPE = new RegExp(
  `[${String.fromCharCode(0)}-${String.fromCharCode(0x1f)}${String.fromCharCode(0x7f)}"\\\\${String.fromCharCode(0xd800)}-${String.fromCharCode(0xdfff)}]`,
);

/**
 * A string as Go's `%q` (strconv.Quote) writes it: `"` and `\` escaped, the C escapes for their
 * controls, other ASCII controls and DEL as `\x..`, printable text as is; a lone surrogate (which
 * Go would hold as invalid UTF-8) becomes U+FFFD.
 */
export function goQuote(value: string): string {
  if (!NEEDS_GO_ESCAPE.test(value)) return `"${value}"`;
  let quoted = '"';
  for (let index = 0; index < value.length; index++) {
    const char = value[index] as string;
    const code = value.charCodeAt(index);
    const named = GO_C_ESCAPES[char];
    if (named !== undefined) quoted += named;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < value.length && /[\udc00-\udfff]/.test(value[index + 1] as string)) {
      quoted += char + (value[index + 1] as string);
      index++;
    } else if (code >= 0xd800 && code <= 0xdfff) quoted += "\ufffd";
    else quoted += char;
  }
  return `${quoted}"`;
}
