/**
 * Server-side apply: field sets, managedFields, merge and conflicts. The registry's Store uses
 * `FieldManager` on every write; the rest is exported for tests and tools.
 */
export { checkAppliedType, FieldManager, type ApplyWrite, type FieldManagerOptions, type FieldWrite } from "./field-manager.js";
export { FieldSet } from "./field-set.js";
export { decodeManagedFields, encodeManagedFields, isResetManagedFields, managerIdentifier } from "./managed-fields.js";
export { pathString, type Path, type PathElement } from "./path.js";
export { merge, removeItems } from "./merge.js";
export { compare, toFieldSet } from "./typed.js";
export { Updater, type Conflict, type VersionedSet } from "./updater.js";
