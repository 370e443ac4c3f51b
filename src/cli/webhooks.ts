import type { Tracer } from "@opentelemetry/api";
import { endpointsResolver, HookClients, webhookAdmission, type EquivalentResource, type WebhookAdmission } from "../admission/webhook/index.js";
import { apiGroup, metaGroup, type Profile } from "../api/profile.js";
import type { ApiObject } from "../api/object.js";
import type { SchemaTree } from "../api/schema/node.js";
import type { ConversionWebhookOptions, Registry, ResourceDefinition } from "../registry/index.js";
import type { Registry as MetricsRegistry } from "prom-client";
import type { Authorizer } from "../authz/authorizer.js";
import type { KindResolver, ParamKindResolver } from "../controllers/admission-policy-status/field-check.js";

function storageId(definition: ResourceDefinition): string {
  const stored = definition.storedAs ?? definition;
  return `${stored.group}/${stored.plural}`;
}

/**
 * The other served versions of a resource (kube's equivalent resource mapper): every version
 * stored as the same objects, each with conversions from the request's version through the
 * storage version and back. Computed once per resource.
 */
export function equivalentResources(registry: Registry): (group: string, version: string, resource: string) => readonly EquivalentResource[] {
  const memo = new Map<string, readonly EquivalentResource[]>();
  return (group, version, resource) => {
    const id = `${group}/${version}/${resource}`;
    const known = memo.get(id);
    if (known !== undefined) return known;
    const own = registry.find(group, version, resource)?.definition;
    const found: EquivalentResource[] = [];
    if (own !== undefined && own.virtual === undefined) {
      const toStorage = (object: ApiObject): ApiObject => (own.storedAs === undefined ? object : own.storedAs.toStorage(object));
      const fromStorage = (object: ApiObject): ApiObject => (own.storedAs === undefined ? object : own.storedAs.fromStorage(object));
      for (const store of registry.stores) {
        const other = store.definition;
        if (other === own || other.virtual !== undefined || storageId(other) !== storageId(own)) continue;
        found.push({
          group: other.group,
          version: other.version,
          resource: other.plural,
          kind: other.kind,
          toVersion: (object) => {
            const stored = toStorage(object);
            return other.storedAs === undefined ? stored : other.storedAs.fromStorage(stored);
          },
          fromVersion: (object) => fromStorage(other.storedAs === undefined ? object : other.storedAs.toStorage(object)),
        });
      }
    }
    memo.set(id, found);
    return found;
  };
}

/**
 * The two webhook admission plugins over the registry: configurations from the watch cache
 * (storage version v1), namespaces, services and endpoints peeked at in it. Undefined when the
 * webhook configuration resources are not served (turned off by --runtime-config).
 */
export function registryWebhookAdmission(
  registry: Registry,
  profile: Profile,
  metrics: MetricsRegistry,
  authorizer?: Authorizer,
  tracer?: Tracer,
): WebhookAdmission | undefined {
  const group = apiGroup(profile, "admissionregistration");
  if (
    registry.find(group, "v1", "mutatingwebhookconfigurations") === undefined ||
    registry.find(group, "v1", "validatingwebhookconfigurations") === undefined
  ) {
    return undefined;
  }
  return webhookAdmission({
    mutatingConfigurations: registry.feed(group, "v1", "mutatingwebhookconfigurations"),
    validatingConfigurations: registry.feed(group, "v1", "validatingwebhookconfigurations"),
    reviewGroup: apiGroup(profile, "admission"),
    configurationGroup: group,
    metaGroup: metaGroup(profile),
    annotationDomain: profile.apiDomain,
    readCore: (plural, namespace, name) => registry.peek("", "v1", plural, namespace, name),
    equivalents: equivalentResources(registry),
    metrics,
    ...(authorizer === undefined ? {} : { authorizer }),
    ...(tracer === undefined ? {} : { tracer }),
    applyDefaults: (resource, object) => registry.find(resource.group, resource.version, resource.resource)?.definition.schema?.applyDefaults(object),
  });
}

/**
 * The served kinds for the policy type checker: a resource's kind, the fields its schema does
 * not declare, and the schema as a tree (for typing `object`/`params`). Undefined for resources not served or without a schema.
 */
export function policyKindResolver(registry: Registry): KindResolver {
  return (group, version, resource) => {
    const definition = registry.find(group, version, resource)?.definition;
    const schema = definition?.schema;
    if (definition === undefined || schema === undefined) return undefined;
    const tree = schema.tree === undefined ? undefined : (): SchemaTree => schema.tree?.() ?? { root: {}, resolve: (node) => node };
    return {
      group,
      version,
      kind: definition.kind,
      unknownFields: (sample) => schema.unknownFields({ metadata: {}, ...sample }, { prune: false }),
      ...(tree === undefined ? {} : { tree }),
    };
  };
}

/** The same by `apiVersion` and kind, for a policy's paramKind (the first served resource of that kind). */
export function policyParamKindResolver(registry: Registry): ParamKindResolver {
  const byResource = policyKindResolver(registry);
  return (apiVersion, kind) => {
    const slash = apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    const store = registry.resourcesOf(group, version).find((candidate) => candidate.definition.kind === kind);
    return store === undefined ? undefined : byResource(group, version, store.definition.plural);
  };
}

/** The client pool of CustomResourceDefinition conversion webhooks (Service targets resolved through the watch cache). */
export function conversionWebhooks(registry: Registry, profile: Profile): ConversionWebhookOptions & { close(): void } {
  const clients = new HookClients(endpointsResolver((plural, namespace, name) => registry.peek("", "v1", plural, namespace, name)));
  // client-go's REST client (kube's converter) sends its 30 s timeout as `?timeout=30s`, and its errors name that URL.
  return {
    post: (hook, body) => clients.post(hook, body, { timeoutParameter: true }),
    reviewGroup: apiGroup(profile, "apiextensions"),
    close: () => clients.close(),
  };
}
