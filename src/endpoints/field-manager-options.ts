import type { ApiObject } from "../api/object.js";
import { listItemOf, type ListItem } from "../registry/index.js";
import type { RequestContext } from "../request/context.js";
import { type FieldManagerOptions, queryFieldManager } from "../request/query/index.js";

/**
 * `fieldManager` and `force` of a create, update or patch (see `queryFieldManager`), the default
 * manager taken from the request's User-Agent.
 */
export function fieldManagerOptions(
  context: RequestContext,
  options: { readonly kind: "CreateOptions" | "UpdateOptions" | "PatchOptions"; readonly metaGroup: string; readonly apply?: boolean },
): FieldManagerOptions {
  return queryFieldManager(context.request.query, context.request.headers["user-agent"], options);
}

/** The object without `metadata.managedFields` (a shallow copy; the argument is not changed). */
export function withoutManagedFields(object: ApiObject): ApiObject {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

export function listItemWithoutManagedFields(item: ListItem): ListItem {
  return listItemOf(withoutManagedFields(item.decode()));
}
