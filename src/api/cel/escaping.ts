/**
 * How a schema property's name reads in CEL, by kube's escaping rules (apiserver's `cel.Escape`,
 * the "CEL in Kubernetes" documentation, Escaping): a CEL reserved word becomes `__word__`
 * (`namespace` → `__namespace__`); otherwise `__` → `__underscores__`, `.` → `__dot__`,
 * `-` → `__dash__`, `/` → `__slash__`. A name that starts with a digit, is empty or holds any
 * other character cannot be named in CEL at all. Map keys (additionalProperties) are never escaped.
 */

/** CEL's reserved words (cel-spec's RESERVED, plus the literals and `in`), as kube lists them. */
const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

const ESCAPED: Readonly<Record<string, string>> = { __: "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__" };

/** The CEL name of property `name`, or undefined when CEL cannot name it. */
export function escapePropertyName(name: string): string | undefined {
  if (name === "" || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let escapable = true;
  const escaped = name.replace(/__|[-./]|[^A-Za-z0-9_]/g, (found) => {
    const replacement = ESCAPED[found];
    if (replacement === undefined) escapable = false;
    return replacement ?? "";
  });
  return escapable ? escaped : undefined;
}

/** The declared property a CEL field name selects (`__namespace__` → `namespace`), if any. */
export function propertyForCelName<T>(properties: Readonly<Record<string, T>> | undefined, celName: string): T | undefined {
  if (properties === undefined) return undefined;
  if (Object.hasOwn(properties, celName)) return properties[celName];
  for (const name of Object.keys(properties)) if (escapePropertyName(name) === celName) return properties[name];
  return undefined;
}
