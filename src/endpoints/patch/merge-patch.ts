import { isPlainObject } from "../../api/object.js";

/**
 * RFC 7386 JSON merge patch: objects merge recursively, null deletes, anything else replaces.
 * Walks with an explicit stack (patches may nest 10,000 levels, past Node's stack); `target` is
 * not mutated: merged objects are copies, untouched subtrees are shared.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const root: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  const pending: [Record<string, unknown>, Record<string, unknown>][] = [[root, patch]];
  while (pending.length > 0) {
    const [result, level] = pending.pop() as [Record<string, unknown>, Record<string, unknown>];
    for (const [key, value] of Object.entries(level)) {
      if (value === null) delete result[key];
      else if (isPlainObject(value)) {
        const current = result[key];
        const merged: Record<string, unknown> = isPlainObject(current) ? { ...current } : {};
        result[key] = merged;
        pending.push([merged, value]);
      } else result[key] = value;
    }
  }
  return root;
}
