import { structuralErrors } from "../../api/crd/structural.js";
import type { JsonSchema } from "../../api/crd/json-schema.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { Controller } from "../controller.js";
import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import { checkNames, readNames, take, type Names } from "./names.js";

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

  async function reconcile(): Promise<void> {
    const { items } = await client.list(definitions, "");
    items.sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""),
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
      const accepted = readNames(record(crd["status"])["acceptedNames"]);
      if (accepted !== undefined) take(takenIn(String(record(crd["spec"])["group"] ?? "")), accepted);
    }
    const present = new Set<string>();
    for (const crd of items) {
      const name = crd.metadata.name ?? "";
      present.add(name);
      await reconcileOne(crd, takenIn(String(record(crd["spec"])["group"] ?? "")));
    }
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
    const conditions: Condition[] = [
      check.accepted
        ? { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }
        : { type: "NamesAccepted", status: "False", reason: check.reason, message: check.message },
    ];
    const violations = nonStructural(crd, options.extensionPrefixes ?? []);
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
        setTimeout(() => wake.poke(), 200).unref();
        return;
      }
    }
    options.unserve(name);
    served.delete(name);
    const finalizers = (crd.metadata.finalizers ?? []).filter((finalizer) => finalizer !== options.finalizer);
    await client.update(definitions, "", name, { ...crd, metadata: { ...crd.metadata, finalizers } });
  }

  return {
    name: "customresourcedefinitions",
    async run(signal) {
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
  const versions = Array.isArray(record(crd["spec"])["versions"]) ? (record(crd["spec"])["versions"] as unknown[]).map(record) : [];
  return versions.flatMap((version, index) => {
    const schema = record(version["schema"])["openAPIV3Schema"];
    if (!isPlainObject(schema)) return [];
    return structuralErrors(schema as JsonSchema, `spec.versions[${index}].schema.openAPIV3Schema`, extensionPrefixes).map(
      (error) => `${error.field}: ${error.message}`,
    );
  });
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
