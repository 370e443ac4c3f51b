/**
 * The registry's public face: what endpoints, the server, controllers' wiring and authorization
 * may use. Everything else under registry/ (the watch cache in `cacher/`, the store's parts) is
 * internal; `npm run lint:layers` fails on an import that goes around this file.
 */
export { Registry, type RegistryOptions } from "./registry.js";
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, finalizersForPolicy } from "./store.js";
export { Store, type DeleteOutcome, type DeleteRequest, type ListResponse, type StoreOptions, type UpdateRequest, type WriteOptions } from "./store.js";
export { listItem, listItemOf, type ListItem } from "./list-item.js";
export { StoredValueError } from "./stored-object.js";
export { registryClient } from "./client.js";
export { readCurrent, type CurrentObject } from "./object-reader.js";
export {
  ALL_VERBS,
  apiVersionOf,
  deprecationWarning,
  groupResource,
  type ConnectHandler,
  type CreateOnlyHandler,
  type AllocationRepair,
  type CreateOnlyRequest,
  type Deprecation,
  type FieldValidation,
  type ResourceDefinition,
  type ScaleSubresource,
  type Scope,
  type Strategy,
  type StrategyContext,
} from "./definition.js";
export { parseListOptions, type ListOptions } from "./list-options.js";
export { bookmarkEvent, errorEvent, watchStore, type ObjectEvent } from "./watch.js";
export { parentApplyConfiguration, parentWithScale, SCALE_API_VERSION, SCALE_KIND, scaleOf } from "./scale.js";
export { enabledDefinitions, parseRuntimeConfig, RuntimeConfigError, type RuntimeConfig } from "./runtime-config.js";
export { withSchemas } from "./schemas.js";
export {
  compiledPrefix,
  customResourceDefinitions,
  type CustomResourceNames,
  type CustomResourceOptions,
  type VersionArtifacts,
} from "./resources/custom/custom-resources.js";
export { CompiledSchemas, DEFAULT_COMPILED_VERSIONS } from "./resources/custom/compiled-schemas.js";
export type { ConversionWebhookOptions } from "./resources/custom/conversion-webhook.js";
export { builtinResources, storedBuiltinResources, type BuiltinResourceOptions } from "./resources/served.js";
export {
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NETWORK,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  parseServiceNetwork,
  type ServiceNetwork,
} from "./resources/core/service-network.js";
export {
  TokenReviewerSlot,
  type AuthenticationApis,
  type TokenRequestClaims,
  type TokenRequestOptions,
  type TokenReviewer,
  type TokenReviewStatus,
} from "./resources/authentication/index.js";
export {
  AccessReviewerSlot,
  type AccessReviewer,
  type ReviewAttributes,
  type ReviewDecision,
  type RulesReviewStatus,
} from "./resources/authorization/access-reviews.js";
export type { WatchCacheMetrics, WatchCacheOptions } from "./cacher/watch-cache.js";
