import { readFileSync } from "node:fs";
import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import { apiGroup, type Profile } from "../../api/profile.js";
import { loadWebhookConfig, webhookClient, type WebhookClient } from "../../auth/webhook-client.js";
import { abacAuthorizer, abacRules, parseAbacPolicies, type AbacPolicy } from "../../authz/abac/abac-authorizer.js";
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, unionAuthorizer, type Authorizer } from "../../authz/authorizer.js";
import type { Freshness } from "../../authz/feed.js";
import { validateAuthorizationConfig, type AuthorizationConfig } from "../../authz/modes.js";
import { NodeGraph } from "../../authz/node/node-graph.js";
import { nodeAuthorizer, nodeIdentity } from "../../authz/node/node-authorizer.js";
import { bootstrapPolicy, rbacNames } from "../../authz/rbac/bootstrap-policy.js";
import { RbacIndex } from "../../authz/rbac/policy-index.js";
import type { PolicyRule } from "../../authz/rbac/policy.js";
import { rbacAuthorizer } from "../../authz/rbac/rbac-authorizer.js";
import { reconcileBinding, reconcileRole, type ReconcileAction } from "../../authz/rbac/reconcile.js";
import { webhookAuthorizer } from "../../authz/webhook/webhook-authorizer.js";
import type { AccessReviewer, Registry, RulesReviewStatus, Store } from "../../registry/index.js";
import type { UserInfo } from "../../request/context.js";
import { errorFields, type Logger } from "../../util/logger.js";

export interface AuthorizationOptions {
  readonly config: AuthorizationConfig;
  /** The registry whose feeds (RBAC objects, pods, claims) the indexes follow; feeds are asked for here, before the registry starts. */
  readonly registry: Registry;
  readonly profile: Profile;
  readonly logger: Logger;
  /** How long a refusal may wait for the indexes to reach the store's revision (default 3 s). */
  readonly freshnessWaitMs?: number;
}

/** The authorization stage: the mode union, the RBAC index, and what keeps them current. */
export interface AuthorizationStage {
  readonly authorizer: Authorizer;
  readonly index: RbacIndex;
  readonly freshness: Freshness;
  /** Backs the access-review APIs. */
  readonly reviewer: AccessReviewer;
  /** Reconciles the default cluster roles and bindings (after the registry has started). */
  start(): Promise<void>;
  /** Reconciles the default Roles and RoleBindings of the system and public namespaces (once those exist). */
  startNamespaced(): Promise<void>;
  stop(): Promise<void>;
}

function toReviewRules(rules: readonly PolicyRule[]): Pick<RulesReviewStatus, "resourceRules" | "nonResourceRules"> {
  const resourceRules: RulesReviewStatus["resourceRules"][number][] = [];
  const nonResourceRules: RulesReviewStatus["nonResourceRules"][number][] = [];
  for (const rule of rules) {
    if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
    else
      resourceRules.push({
        verbs: rule.verbs,
        ...(rule.apiGroups === undefined ? {} : { apiGroups: rule.apiGroups }),
        ...(rule.resources === undefined ? {} : { resources: rule.resources }),
        ...(rule.resourceNames === undefined || rule.resourceNames.length === 0 ? {} : { resourceNames: rule.resourceNames }),
      });
  }
  return { resourceRules, nonResourceRules };
}

/**
 * Builds the authorizers of `--authorization-mode` in order (union: first allow or deny wins,
 * default deny), over indexes fed by the watch cache: RBAC bindings by subject and roles by
 * name, the node graph from pods and claims. Files (ABAC policy, webhook kubeconfig) are read
 * here, so a bad one fails the start.
 */
export function createAuthorization(options: AuthorizationOptions): AuthorizationStage {
  const { config, registry, profile, logger } = options;
  validateAuthorizationConfig(config);
  const names = rbacNames(profile);
  const rbac = (plural: string) => registry.feed(names.group, "v1", plural);
  const index = new RbacIndex(
    { roles: rbac("roles"), clusterRoles: rbac("clusterroles"), roleBindings: rbac("rolebindings"), clusterRoleBindings: rbac("clusterrolebindings") },
    names.group,
  );
  const wait = { freshnessWaitMs: options.freshnessWaitMs };
  let graph: NodeGraph | undefined;
  let policies: AbacPolicy[] | undefined;
  let client: WebhookClient | undefined;
  const authorizers: Authorizer[] = config.modes.map((mode) => {
    switch (mode) {
      case "AlwaysAllow":
        return alwaysAllowAuthorizer();
      case "AlwaysDeny":
        return alwaysDenyAuthorizer();
      case "RBAC":
        return rbacAuthorizer(index, registry.freshness, wait);
      case "Node":
        graph = new NodeGraph({ pods: registry.feed("", "v1", "pods"), persistentVolumeClaims: registry.feed("", "v1", "persistentvolumeclaims") });
        return nodeAuthorizer(graph, registry.freshness, wait);
      case "ABAC":
        policies = parseAbacPolicies(readFileSync(config.policyFile ?? "", "utf8"), profile.keyDomain);
        return abacAuthorizer(policies);
      case "Webhook":
        client = webhookClient(loadWebhookConfig(config.webhookConfigFile ?? ""));
        return webhookAuthorizer({
          client,
          group: apiGroup(profile, "authorization"),
          version: config.webhookVersion,
          authorizedTtlMs: config.webhookAuthorizedTtlMs,
          unauthorizedTtlMs: config.webhookUnauthorizedTtlMs,
          onError: (error) => logger.error("authorization webhook failed", errorFields(error)),
        });
    }
  });
  const authorizer = unionAuthorizer(authorizers);

  const reviewer: AccessReviewer = {
    check: (user, attributes) => authorizer.authorize(user, attributes),
    async rules(user: UserInfo, namespace: string): Promise<RulesReviewStatus> {
      const resourceRules: RulesReviewStatus["resourceRules"][number][] = [];
      const nonResourceRules: RulesReviewStatus["nonResourceRules"][number][] = [];
      const errors: string[] = [];
      let incomplete = false;
      for (const mode of config.modes) {
        switch (mode) {
          case "AlwaysAllow":
            resourceRules.push({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
            nonResourceRules.push({ verbs: ["*"], nonResourceURLs: ["*"] });
            break;
          case "AlwaysDeny":
            break;
          case "RBAC": {
            if (!registry.freshness.isCurrent()) await registry.freshness.waitForCurrent(options.freshnessWaitMs ?? 3000);
            const held = index.rulesFor(user, namespace);
            const converted = toReviewRules(held.rules);
            resourceRules.push(...converted.resourceRules);
            nonResourceRules.push(...converted.nonResourceRules);
            // As kube's RBAC authorizer: bindings that do not resolve are reported, but the list
            // is not marked incomplete (only the Node and Webhook authorizers do that).
            errors.push(...held.errors);
            break;
          }
          case "Node":
            if (nodeIdentity(user) !== undefined) {
              incomplete = true;
              errors.push("node authorizer does not support user rule resolution");
            }
            break;
          case "ABAC": {
            const granted = abacRules(policies ?? [], user, namespace);
            resourceRules.push(...granted.resourceRules);
            nonResourceRules.push(...granted.nonResourceRules);
            break;
          }
          case "Webhook":
            incomplete = true;
            errors.push("webhook authorizer does not support user rule resolution");
            break;
        }
      }
      return { resourceRules, nonResourceRules, incomplete, ...(errors.length === 0 ? {} : { evaluationError: aggregateMessage(errors) }) };
    },
  };

  return {
    authorizer,
    index,
    freshness: registry.freshness,
    reviewer,
    async start() {
      await reconcileDefaultPolicy(registry, profile, logger, "cluster");
    },
    async startNamespaced() {
      await reconcileDefaultPolicy(registry, profile, logger, "namespaced");
    },
    async stop() {
      index.close();
      graph?.close();
      client?.close();
    },
  };
}

async function readOrUndefined(store: Store, namespace: string, name: string): Promise<ApiObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return undefined;
    throw error;
  }
}

async function apply(store: Store, action: ReconcileAction): Promise<void> {
  const namespace = action.kind === "none" ? "" : (action.object.metadata.namespace ?? "");
  switch (action.kind) {
    case "none":
      return;
    case "create":
      await store.create(namespace, action.object);
      return;
    case "update":
      await store.update(namespace, action.object.metadata.name ?? "", { build: () => action.object });
      return;
    case "recreate":
      await store.delete(namespace, action.object.metadata.name ?? "");
      await store.create(namespace, action.object);
      return;
  }
}

/**
 * Creates the default cluster roles and bindings that are missing and adds what is missing to
 * the others (kube's bootstrap-policy reconciliation; objects annotated autoupdate "false" are
 * left alone). Another writer racing it makes it read and try again.
 */
async function reconcileDefaultPolicy(registry: Registry, profile: Profile, logger: Logger, scope: "cluster" | "namespaced"): Promise<void> {
  const names = rbacNames(profile);
  const policy = bootstrapPolicy(profile);
  const namespaced = scope === "namespaced";
  const roles = registry.find(names.group, "v1", namespaced ? "roles" : "clusterroles");
  const bindings = registry.find(names.group, "v1", namespaced ? "rolebindings" : "clusterrolebindings");
  if (roles === undefined || bindings === undefined) throw new Error("the RBAC API is not served");
  const work: [Store, ApiObject, typeof reconcileRole][] = [
    ...(namespaced ? policy.roles : policy.clusterRoles).map((role): [Store, ApiObject, typeof reconcileRole] => [roles, role, reconcileRole]),
    ...(namespaced ? policy.roleBindings : policy.clusterRoleBindings).map((binding): [Store, ApiObject, typeof reconcileRole] => [
      bindings,
      binding,
      reconcileBinding,
    ]),
  ];
  // Independent objects, reconciled concurrently: the first start's creates share fsyncs.
  await Promise.all(
    work.map(async ([store, expected, reconcile]) => {
      const name = expected.metadata.name ?? "";
      for (let attempt = 1; ; attempt++) {
        try {
          await apply(store, reconcile(expected, await readOrUndefined(store, expected.metadata.namespace ?? "", name), names.autoupdateAnnotation));
          return;
        } catch (error) {
          const retryable = error instanceof ApiError && (error.code === 409 || error.code === 404);
          if (!retryable || attempt >= 5) {
            logger.error(`could not reconcile default ${store.definition.kind} ${name}`, errorFields(error));
            throw error;
          }
        }
      }
    }),
  );
}

/** The text of kube's error aggregate: one distinct message as it is, several as `[a, b]`. */
function aggregateMessage(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? (distinct[0] ?? "") : `[${distinct.join(", ")}]`;
}
