/**
 * The one place query parameters are parsed: one parser per concept (booleans, integers, the
 * `timeout` duration, selectors, resourceVersion, each enum). A parameter that does not parse is a
 * kube-shaped Status naming it: 400 BadRequest, or 422 Invalid naming the options kind where kube
 * validates the options (ListOptions, Create/Update/PatchOptions, DeleteOptions).
 */
export { parseQueryBoolean, queryBoolean } from "./boolean.js";
export { queryTimeout } from "./duration.js";
export {
  checkDryRunValues,
  type DryRunOptionsKind,
  type EnumParameter,
  FIELD_VALIDATION_MODES,
  type FieldValidationMode,
  type IncludeObject,
  type PropagationPolicy,
  queryDryRun,
  queryFieldValidation,
  queryIncludeObject,
  queryPropagationPolicy,
  queryResourceVersionMatch,
  type ResourceVersionMatch,
} from "./enums.js";
export { parseQueryInteger, queryInteger } from "./integer.js";
export { parseRevision, queryResourceVersion } from "./resource-version.js";
export { queryFieldSelector, queryLabelSelector } from "./selector.js";
export { type FieldManagerOptions, managerFromUserAgent, queryFieldManager } from "./field-manager.js";
