/** One `resources[].resources` entry read: `secrets` → core, `deployments.apps`, `*.apps`, `*.`, `*.*`. */
export interface ResourcePattern {
  readonly group: string;
  readonly resource: string;
}

/** kube's ParseGroupResource: the text before the first dot is the resource, the rest the group. */
function parse(entry: string): ResourcePattern {
  const dot = entry.indexOf(".");
  return dot < 0 ? { resource: entry, group: "" } : { resource: entry.slice(0, dot), group: entry.slice(dot + 1) };
}

/** Go's `%#v` of a string list, as kube's field errors print one. */
function goStrings(values: readonly string[]): string {
  return `[]string{${values.map((value) => JSON.stringify(value)).join(", ")}}`;
}

/**
 * Reads one `resources[i].resources` list with kube's EncryptionConfiguration rules and texts
 * (validateResourceOverlap, then validateResourceNames): a list naming one resource twice, or a
 * wildcard beside a name it covers, is refused as a whole; an entry with capitals, a bare `*`,
 * a resource without a REST API, the events group (`eventsGroup`, stored as core `events`),
 * `extensions` or `resource.*` is refused by its index. Returns the first finding, or the patterns.
 */
export function parseResourcePatterns(field: string, value: unknown, eventsGroup: string): ResourcePattern[] | string {
  if (!Array.isArray(value) || value.length === 0) return `${field}: Required value: at least one ${field} is required`;
  const entries: string[] = [];
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== "string" || entry === "") return `${field}[${index}]: Invalid value: ${JSON.stringify(entry)}: must be a resource name`;
    entries.push(entry);
  }
  const patterns = entries.map(parse);
  let duplicate = false;
  let overlap = false;
  patterns.forEach((first, i) => {
    patterns.forEach((second, j) => {
      if (i === j) return;
      if (first.group === second.group && first.resource === second.resource) duplicate = true;
      else if (first.group === "*" && first.resource === "*") overlap = true;
      else if (first.group === second.group && (first.resource === "*" || second.resource === "*")) overlap = true;
    });
  });
  if (duplicate) return `${field}: Invalid value: ${goStrings(entries)}: the same resource cannot be specified multiple times`;
  if (overlap)
    return `${field}: Invalid value: ${goStrings(entries)}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`;
  for (const [index, entry] of entries.entries()) {
    const at = `${field}[${index}]: Invalid value: ${JSON.stringify(entry)}`;
    const { group, resource } = patterns[index] ?? parse(entry);
    if (entry.toLowerCase() !== entry) return `${at}: resource name should not contain capital letters`;
    if (entry === "*") return `${at}: use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`;
    if (["apiserveripinfo", "serviceipallocations", "servicenodeportallocations"].includes(entry))
      return `${at}: resources which do not have REST API/s cannot be encrypted`;
    if (group === eventsGroup)
      return `${at}: '*.${eventsGroup}' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`;
    if (group === "extensions") return `${at}: 'extensions' group has been removed and cannot be used for encryption`;
    if (group === "*" && resource !== "*") return `${at}: encrypting the same resource across groups is not supported`;
    if (!/^(\*|[a-z0-9-]+)(\.(\*|[a-z0-9.-]*))?$/.test(entry)) return `${at}: must be resource.group, *.group, *. or *.*`;
  }
  return patterns;
}
