/** kube-controller-manager's controllers that are off unless named in `--controllers`. */
export const OFF_BY_DEFAULT: ReadonlySet<string> = new Set(["bootstrapsigner", "tokencleaner"]);

/**
 * Whether `--controllers` (kube's spelling) turns `name` on: `-name` turns it off, `name` on,
 * `*` turns on every controller not off by default. Order in the list does not matter: as kube,
 * `-name` wins over `name`, which wins over `*`.
 */
export function controllerEnabled(selection: readonly string[], name: string): boolean {
  if (selection.includes(`-${name}`)) return false;
  if (selection.includes(name)) return true;
  return selection.includes("*") && !OFF_BY_DEFAULT.has(name);
}
