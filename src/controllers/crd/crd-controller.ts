import { hoistedSites } from "../../api/crd/hoisted-fields.js";
import { structuralErrors } from "../../api/crd/structural.js";
import type { JsonSchema } from "../../api/crd/json-schema.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { FeedChange, Freshness, ObjectFeed } from "../../authz/feed.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { Controller } from "../controller.js";
import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import { checkNames, readNames, take, type Names } from "./names.js";
import { apiApprovalCondition } from "../../api/schema/rules/crd-api-approval.js";

/** Built-in resources of a group, which custom resources may not shadow. */
export interface BuiltinNames {
  readonly resources: readonly string[];
  readonly kinds: readonly string[];
}

export interface CustomResourceDefinitionControllerOptions {
  readonly client: ApiClient;
  /** The CustomResourceDefinition resource (`apiextensions.<apiDomain>/v1`). */
  readonly definitions: ResourceRef;
  /** The cleanup finalizer (`customresourcecleanup.apiextensions.<apiDomain>`). */
  readonly finalizer: string;
  readonly builtinNames: (group: string) => BuiltinNames;
  /** Serves (or serves anew) a definition's versions under its accepted names. */
  readonly serve: (crd: ApiObject, names: Names) => Promise<void>;
  /** Stops serving a definition's resources. */
  readonly unserve: (name: string) => void;
  readonly now?: () => string;
  readonly onError?: (error: unknown) => void;
  /** Called after each pass over every definition (the first one: start-up has caught up). */
  readonly onSynced?: () => void;
  /** The profile's OpenAPI extension prefixes, for the structural-schema check of stored definitions. */
  readonly extensionPrefixes?: readonly string[];
  /**
   * The server's live view of the definitions (its watch cache) and how current it is. With it,
   * a pass reads no stored definition again and reconciles only those that changed and the
   * others of their groups (names may have been freed); without it, every pass lists them all.
   */
  readonly feed?: { readonly objects: ObjectFeed; readonly freshness: Freshness };
}

interface Condition {
  readonly type: string;
  readonly status: "True" | "False";
  readonly reason: string;
  readonly message: string;
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function storageVersion(crd: ApiObject): string | undefined {
  const versions = Array.isArray(record(crd["spec"])["versions"]) ? (record(crd["spec"])["versions"] as unknown[]) : [];
  const found = versions.map(record).find((version) => version["storage"] === true);
  return typeof found?.["name"] === "string" ? found["name"] : undefined;
}

/**
 * kube's apiextensions controllers in one level-triggered loop over every
 * CustomResourceDefinition: naming (NamesAccepted, conflicts with built-in resources and
 * earlier definitions in the group), establishing (Established once names are accepted; the
 * versions are served from then on), `status.storedVersions`, and the cleanup finalizer (a
 * definition being deleted has every custom object deleted, then stops being served and its
 * finalizer is removed). Definitions are served again only when their spec or names change.
 */
export function customResourceDefinitionController(options: CustomResourceDefinitionControllerOptions): Controller {
  const { client, definitions } = options;
  const now = options.now ?? (() => new Date().toISOString().replace(/\.\d{3}Z$/, "Z"));
  const served = new Map<string, string>();
  const wake = new Wake();
  /** The definitions as last seen (from the feed, slimmed), and the resourceVersion each was last reconciled at. */
  const known = new Map<string, ApiObject>();
  const reconciled = new Map<string, string>();
  /** Groups where a definition went away since the last pass: the others there are looked at again. */
  const vacated = new Set<string>();
  let reload = true;
  const feed = options.feed;
  const groupOf = (crd: ApiObject): string => String(record(crd["spec"])["group"] ?? "");

  function follow(change: FeedChange): void {
    if (change.kind === "reset") reload = true;
    else if (change.kind === "set") known.set(change.object.metadata.name ?? "", slim(change.object));
    else {
      known.delete(change.previous.metadata.name ?? "");
      vacated.add(groupOf(change.previous));
    }
    wake.poke();
  }

  /** Every definition, in creation order; with the feed, from memory once the watch cache is current. */
  async function current(): Promise<ApiObject[]> {
    if (feed === undefined) return (await client.list(definitions, "")).items;
    await feed.freshness.waitForCurrent(5_000);
    if (reload) {
      reload = false;
      known.clear();
      reconciled.clear();
      for (const crd of feed.objects.objects()) known.set(crd.metadata.name ?? "", slim(crd));
    }
    return [...known.values()];
  }

  async function reconcile(): Promise<void> {
    const items = await current();
    // Groups with a changed (or vanished) definition are reconciled whole; the rest is as it was.
    const dirty = new Set(vacated);
    vacated.clear();
    for (const crd of items) if (feed === undefined || reconciled.get(crd.metadata.name ?? "") !== crd.metadata.resourceVersion) dirty.add(groupOf(crd));
    // Plain code-unit order (timestamps and names are ASCII): locale comparison costs a pass over thousands of definitions dearly.
    items.sort(
      (a, b) =>
        compareText(a.metadata.creationTimestamp ?? "", b.metadata.creationTimestamp ?? "") || compareText(a.metadata.name ?? "", b.metadata.name ?? ""),
    );
    const takenByGroup = new Map<string, { resources: Set<string>; kinds: Set<string> }>();
    const takenIn = (group: string) => {
      let taken = takenByGroup.get(group);
      if (taken === undefined) {
        const builtin = options.builtinNames(group);
        taken = { resources: new Set(builtin.resources), kinds: new Set(builtin.kinds) };
        takenByGroup.set(group, taken);
      }
      return taken;
    };
    // Names accepted earlier keep their place: they are taken first, in creation order.
    for (const crd of items) {
      if (!dirty.has(groupOf(crd))) continue;
      const accepted = readNames(record(crd["status"])["acceptedNames"]);
      if (accepted !== undefined) take(takenIn(groupOf(crd)), accepted);
    }
    const present = new Set<string>();
    for (const crd of items) {
      const name = crd.metadata.name ?? "";
      present.add(name);
      if (!dirty.has(groupOf(crd))) continue;
      // Only the definitions looked at are read whole (the feed keeps each as cached JSON).
      const whole = feed === undefined ? crd : feed.objects.get("", name);
      if (whole === undefined) continue;
      await reconcileOne(whole, takenIn(groupOf(crd)));
      reconciled.set(name, whole.metadata.resourceVersion ?? "");
    }
    for (const name of reconciled.keys()) if (!present.has(name)) reconciled.delete(name);
    for (const name of served.keys()) {
      if (present.has(name)) continue;
      options.unserve(name);
      served.delete(name);
    }
    options.onSynced?.();
  }

  async function reconcileOne(crd: ApiObject, taken: { resources: Set<string>; kinds: Set<string> }): Promise<void> {
    const name = crd.metadata.name ?? "";
    const status = record(crd["status"]);
    const previous = readNames(status["acceptedNames"]);
    // The definition's own accepted names do not conflict with themselves.
    const others = { resources: new Set(taken.resources), kinds: new Set(taken.kinds) };
    if (previous !== undefined) {
      for (const resource of [previous.plural, previous.singular, ...previous.shortNames]) others.resources.delete(resource);
      for (const kind of [previous.kind, previous.listKind]) others.kinds.delete(kind);
    }
    const check = checkNames(crd, others);
    const names = check.names;
    if (names !== undefined) take(taken, names);
    if (crd.metadata.deletionTimestamp !== undefined) {
      await cleanUp(crd, names);
      return;
    }
    // kube's API approval controller writes its condition apart from (and usually before) the naming one.
    const approval = apiApprovalCondition(crd, groupOf(crd));
    const conditions: Condition[] = [
      ...(approval === undefined ? [] : [approval]),
      check.accepted
        ? { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }
        : { type: "NamesAccepted", status: "False", reason: check.reason, message: check.message },
    ];
    const violations = structuralViolations(crd);
    if (violations.length > 0)
      conditions.push({
        type: "NonStructuralSchema",
        status: "True",
        reason: "Violations",
        message: violations.length === 1 ? (violations[0] ?? "") : `[${violations.join(", ")}]`,
      });
    const established = names !== undefined;
    if (established) {
      conditions.push({ type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" });
      const signature = `${String(crd.metadata.generation ?? "")}/${canonicalJson(names)}`;
      if (served.get(name) !== signature) {
        await options.serve(crd, names);
        served.set(name, signature);
      }
    } else {
      conditions.push({ type: "Established", status: "False", reason: "NotAccepted", message: "not all names are accepted" });
    }
    const stored = Array.isArray(status["storedVersions"]) ? status["storedVersions"].filter((item): item is string => typeof item === "string") : [];
    const storage = storageVersion(crd);
    const storedVersions = storage === undefined || stored.includes(storage) ? stored : [...stored, storage];
    await writeStatus(crd, { acceptedNames: names ?? { plural: "", kind: "" }, storedVersions, conditions });
  }

  /** The structural check of a definition's schemas, once per generation (schemas are large). */
  const checked = new Map<string, { readonly generation: unknown; readonly violations: string[] }>();
  function structuralViolations(crd: ApiObject): string[] {
    const name = crd.metadata.name ?? "";
    const memo = checked.get(name);
    if (memo !== undefined && memo.generation === crd.metadata.generation) return memo.violations;
    const violations = nonStructural(crd, options.extensionPrefixes ?? []);
    checked.set(name, { generation: crd.metadata.generation, violations });
    return violations;
  }

  async function writeStatus(
    crd: ApiObject,
    desired: {
      readonly acceptedNames: Names | { plural: string; kind: string };
      readonly storedVersions: readonly string[];
      readonly conditions: readonly Condition[];
    },
  ): Promise<void> {
    const status = record(crd["status"]);
    const current = Array.isArray(status["conditions"]) ? status["conditions"].map(record) : [];
    const stamp = now();
    const conditions = desired.conditions.map((condition) => {
      const earlier = current.find((item) => item["type"] === condition.type);
      const since =
        earlier !== undefined && earlier["status"] === condition.status && typeof earlier["lastTransitionTime"] === "string"
          ? earlier["lastTransitionTime"]
          : stamp;
      return { ...condition, lastTransitionTime: since };
    });
    // Conditions this controller does not write (a Terminating condition from an earlier pass, others') are kept;
    // NonStructuralSchema goes once the schemas are structural.
    const kept = current.filter((item) => item["type"] !== "NonStructuralSchema" && !desired.conditions.some((condition) => condition.type === item["type"]));
    const next = {
      ...status,
      acceptedNames: compactNames(desired.acceptedNames),
      storedVersions: desired.storedVersions,
      conditions: [...kept, ...conditions],
    };
    if (canonicalJson(next) === canonicalJson(status)) return;
    await client.updateSubresource(definitions, "", crd.metadata.name ?? "", "status", { ...crd, status: next });
  }

  /** Deletes every custom object (storage version, all namespaces); once none is left, unserves and lets the definition go. */
  async function cleanUp(crd: ApiObject, names: Names | undefined): Promise<void> {
    const name = crd.metadata.name ?? "";
    if (!(crd.metadata.finalizers ?? []).includes(options.finalizer)) return;
    const terminating: Condition = {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionInProgress",
      message: "CustomResource deletion is in progress",
    };
    const storage = storageVersion(crd);
    const group = String(record(crd["spec"])["group"] ?? "");
    if (names !== undefined && storage !== undefined && served.has(name)) {
      const resource = { group, version: storage, plural: names.plural };
      const status = record(crd["status"]);
      const conditions = Array.isArray(status["conditions"]) ? status["conditions"].map(record) : [];
      if (!conditions.some((condition) => condition["type"] === "Terminating")) {
        await client.updateSubresource(definitions, "", name, "status", {
          ...crd,
          status: { ...status, conditions: [...conditions, { ...terminating, lastTransitionTime: now() }] },
        });
        return;
      }
      // Served again as terminating first: creates are refused from then on (405), so the deletion ends.
      const signature = `${String(crd.metadata.generation ?? "")}/${canonicalJson(names)}/terminating`;
      if (served.get(name) !== signature) {
        await options.serve(crd, names);
        served.set(name, signature);
      }
      await client.deleteCollection(resource, "");
      const left = await client.list(resource, "");
      if (left.items.length > 0) {
        // Objects held by their own finalizers: look again shortly.
        setTimeout(() => {
          reconciled.delete(name);
          wake.poke();
        }, 200).unref();
        return;
      }
    }
    options.unserve(name);
    served.delete(name);
    checked.delete(name);
    const finalizers = (crd.metadata.finalizers ?? []).filter((finalizer) => finalizer !== options.finalizer);
    await client.update(definitions, "", name, { ...crd, metadata: { ...crd.metadata, finalizers } });
  }

  return {
    name: "customresourcedefinitions",
    async run(signal) {
      if (feed !== undefined) {
        const unsubscribe = feed.objects.subscribe(follow);
        signal.addEventListener("abort", unsubscribe, { once: true });
        await runReconcileLoop(signal, wake, reconcile, options.onError);
        return;
      }
      const changes = (async () => {
        for await (const _change of client.changed(definitions, signal)) wake.poke();
      })();
      await runReconcileLoop(signal, wake, reconcile, options.onError);
      await changes.catch(() => {});
    },
  };
}

/**
 * Structural-schema violations of a stored definition (one stored before the checks, or under
 * another server): kube reports them in a NonStructuralSchema condition, as "<field>: <message>".
 */
function nonStructural(crd: ApiObject, extensionPrefixes: readonly string[]): string[] {
  const versions = Array.isArray(record(crd["spec"])["versions"]) ? (record(crd["spec"])["versions"] as unknown[]) : [];
  return hoistedSites(versions, "schema").flatMap((site) => {
    const schema = record(site.value)["openAPIV3Schema"];
    if (!isPlainObject(schema)) return [];
    return structuralErrors(schema as JsonSchema, `${site.path}.openAPIV3Schema`, extensionPrefixes).map((error) => `${error.field}: ${error.message}`);
  });
}

/**
 * What the controller keeps of a definition between passes: enough to order them, see what
 * changed and know the names each has taken — not the schemas, which are large (hundreds of KB).
 */
function slim(crd: ApiObject): ApiObject {
  const { managedFields: _managedFields, ...metadata } = crd.metadata;
  return {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata,
    spec: { group: record(crd["spec"])["group"] },
    status: { acceptedNames: record(crd["status"])["acceptedNames"] },
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** kube omits empty lists and unset names from `acceptedNames`. */
function compactNames(names: Names | { plural: string; kind: string }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(names)) {
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}
