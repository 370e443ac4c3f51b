import type { ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";

export const NAMESPACES: ResourceRef = { group: "", version: "v1", plural: "namespaces" };
export const SERVICE_ACCOUNTS: ResourceRef = { group: "", version: "v1", plural: "serviceaccounts" };
export const CONFIG_MAPS: ResourceRef = { group: "", version: "v1", plural: "configmaps" };
export const SECRETS: ResourceRef = { group: "", version: "v1", plural: "secrets" };

/** A write that lost to the namespace going away or to someone else's create: nothing to do. */
export function isSettled(error: unknown): boolean {
  return error instanceof ApiError && (error.reason === "AlreadyExists" || error.code === 404 || (error.code === 403 && error.message.includes("terminat")));
}
