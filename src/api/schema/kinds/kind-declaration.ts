/**
 * One served kind and the definition that is its schema. `group` is the group's name, or with
 * `domain` its prefix under the profile's API domain (`networking` → `networking.<apiDomain>`).
 */
export interface KindDeclaration {
  readonly group: string;
  readonly domain?: boolean;
  readonly version: string;
  readonly kind: string;
  /** The catalogue id of the kind's definition (`core.v1.Pod`). */
  readonly id: string;
}

/** Declarations of kinds whose definitions are named `<package>.<version>.<Kind>`. */
export function kindsOf(
  group: string,
  options: { readonly domain?: boolean; readonly package?: string },
  byVersion: Readonly<Record<string, readonly string[]>>,
): KindDeclaration[] {
  const packageName = options.package ?? group;
  return Object.entries(byVersion).flatMap(([version, kinds]) =>
    kinds.map((kind) => ({ group, ...(options.domain === true ? { domain: true } : {}), version, kind, id: `${packageName}.${version}.${kind}` })),
  );
}
