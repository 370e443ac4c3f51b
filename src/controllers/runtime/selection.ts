/** A controller the `--controllers` flag can name: kube-controller-manager's name and its 1.28+ long alias. */
export interface ControllerName {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** In `*` (kube leaves bootstrapsigner and tokencleaner out). */
  readonly enabledByDefault: boolean;
}

/**
 * kube's `--controllers` rule: `*` is every controller enabled by default, `name` enables one,
 * `-name` disables one (a disable wins over `*`); an unknown name is an error. Returns the
 * enabled names (canonical spelling).
 */
export function selectControllers(known: readonly ControllerName[], flag: readonly string[]): Set<string> {
  const canonical = new Map<string, string>();
  for (const entry of known) {
    canonical.set(entry.name, entry.name);
    for (const alias of entry.aliases ?? []) canonical.set(alias, entry.name);
  }
  const resolve = (name: string): string => {
    const found = canonical.get(name);
    if (found === undefined) throw new Error(`"${name}" is not in the list of known controllers`);
    return found;
  };
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let star = false;
  for (const raw of flag) {
    const item = raw.trim();
    if (item === "") continue;
    if (item === "*") star = true;
    else if (item.startsWith("-")) disabled.add(resolve(item.slice(1)));
    else enabled.add(resolve(item));
  }
  if (star) for (const entry of known) if (entry.enabledByDefault) enabled.add(entry.name);
  for (const name of disabled) enabled.delete(name);
  return enabled;
}
