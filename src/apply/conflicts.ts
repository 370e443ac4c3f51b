import { ApiError, type StatusCause } from "../api/errors.js";
import { parseIdentifier } from "./managed-fields.js";
import { pathString } from "./path.js";
import type { Conflict } from "./updater.js";

/** `"kubectl"`, `"kube-controller-manager" using apps/v1`, `"x" with subresource "status" using v1`: how kube names a manager. */
export function printManager(identifier: string): string {
  let info;
  try {
    info = parseIdentifier(identifier);
  } catch {
    return JSON.stringify(identifier);
  }
  let text = JSON.stringify(info.manager);
  if (info.subresource !== undefined && info.subresource !== "") text = `${text} with subresource ${JSON.stringify(info.subresource)}`;
  return info.operation === "Update" ? `${text} using ${info.apiVersion ?? ""}` : text;
}

/**
 * The 409 an apply conflict answers, worded as kube's: one cause per field
 * (reason `FieldManagerConflict`, the field's path, the manager), managers sorted in the message.
 */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const sorted = [...conflicts].sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
  const causes: StatusCause[] = sorted.map((conflict) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(conflict.manager)}`,
    field: pathString(conflict.path),
  }));
  let message: string;
  const only = sorted[0];
  if (sorted.length === 1 && only !== undefined) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${pathString(only.path)}`;
  } else {
    const lines: string[] = [];
    let previous: string | undefined;
    for (const conflict of sorted) {
      if (conflict.manager !== previous) lines.push(`conflicts with ${printManager(conflict.manager)}:`);
      previous = conflict.manager;
      lines.push(`- ${pathString(conflict.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join("\n")}`;
  }
  return new ApiError(409, "Conflict", message, { details: { causes } });
}
