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
