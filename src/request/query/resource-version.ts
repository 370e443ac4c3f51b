import { badRequest } from "../../api/errors.js";

/** Parses a resourceVersion into a revision (0 for "0"); 400 if it is not a non-negative integer. */
export function parseRevision(text: string): number {
  if (!/^\d+$/.test(text)) throw badRequest(`invalid resource version "${text}": resourceVersion must be a non-negative integer`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw badRequest(`invalid resource version "${text}"`);
  return value;
}

/** `resourceVersion` as given, checked to be a revision or "0"; undefined when absent or empty. */
export function queryResourceVersion(query: URLSearchParams): string | undefined {
  const text = query.get("resourceVersion");
  if (text === null || text === "") return undefined;
  parseRevision(text);
  return text;
}
