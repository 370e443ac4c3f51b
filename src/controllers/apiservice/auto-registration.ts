import { apiServiceName, type ApiServicePriority } from "../../api/apiservice.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { Controller } from "../controller.js";
import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import type { InformerFactory } from "../runtime/informer.js";

/** One group version this server serves itself, as the registration sees it. */
export interface LocalGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly priority: ApiServicePriority;
  /** A custom resource's group version: kept in step for as long as it is served (`true`); built-in ones are registered at start (`onstart`). */
  readonly custom: boolean;
}

export interface ApiServiceRegistrationOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The APIService resource (`apiregistration.<apiDomain>/v1`). */
  readonly apiServices: ResourceRef;
  /** The label marking registered APIServices (the profile's `apiServiceAutomanagedLabel`). */
  readonly label: string;
  /** The group versions served now, built-in and custom. */
  readonly served: () => readonly LocalGroupVersion[];
  /** Subscribes to changes of what is served; returns the unsubscribe. */
  readonly onServedChange: (listener: () => void) => () => void;
  /** Resolves once custom resources found at start are served: the first pass waits for it, so it deletes none of theirs. */
  readonly ready: Promise<void>;
  readonly onError?: (error: unknown) => void;
}

function specOf(object: ApiObject): Record<string, unknown> {
  return isPlainObject(object["spec"]) ? object["spec"] : {};
}

function desiredSpec(entry: LocalGroupVersion): Record<string, unknown> {
  return { group: entry.group, version: entry.version, groupPriorityMinimum: entry.priority.group, versionPriority: entry.priority.version };
}

/** The spec already says what the registration would write (no service, the same names and priorities). */
function sameSpec(current: Record<string, unknown>, desired: Record<string, unknown>): boolean {
  return (
    current["service"] === undefined &&
    current["caBundle"] === undefined &&
    current["insecureSkipTLSVerify"] !== true &&
    Object.entries(desired).every(([key, value]) => current[key] === value)
  );
}

/**
 * kube-aggregator's auto-registration (with kube-apiserver's CRD registration): a local
 * APIService for each built-in group version served (created or corrected at start, labelled
 * `onstart`) and for each custom resource group version (labelled `true`, kept in step as
 * definitions come and go: created, corrected, deleted). APIServices without the label are the
 * users' and never touched; `onstart` ones no longer served are removed at start only.
 */
export function apiServiceRegistrationController(options: ApiServiceRegistrationOptions): Controller {
  const { client, apiServices, label } = options;
  const informer = options.informers.informer(apiServices);
  const wake = new Wake();
  let firstPass = true;

  async function apply(entry: LocalGroupVersion): Promise<void> {
    const name = apiServiceName(entry.group, entry.version);
    const mode = entry.custom ? "true" : "onstart";
    const current = informer.get("", name);
    const desired = desiredSpec(entry);
    if (current === undefined) {
      if (!entry.custom && !firstPass) return;
      await client.create(apiServices, "", {
        apiVersion: `${apiServices.group}/${apiServices.version}`,
        kind: "APIService",
        metadata: { name, labels: { [label]: mode } },
        spec: desired,
      });
      return;
    }
    const labels = current.metadata.labels ?? {};
    // Users' APIServices are theirs; an `onstart` one is only set right at start.
    if (labels[label] === undefined || (!entry.custom && !firstPass)) return;
    if (sameSpec(specOf(current), desired) && labels[label] === mode) return;
    const { service: _service, caBundle: _caBundle, insecureSkipTLSVerify: _insecure, ...rest } = specOf(current);
    await client.update(apiServices, "", name, {
      ...current,
      metadata: { ...current.metadata, labels: { ...labels, [label]: mode } },
      spec: { ...rest, ...desired },
    });
  }

  async function reconcile(): Promise<void> {
    const wanted = new Map(options.served().map((entry) => [apiServiceName(entry.group, entry.version), entry]));
    for (const entry of wanted.values()) {
      try {
        await apply(entry);
      } catch (error) {
        // Another writer got there first: the next change wakes this pass again.
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
    }
    for (const object of informer.list()) {
      const name = object.metadata.name ?? "";
      const mode = (object.metadata.labels ?? {})[label];
      if (wanted.has(name) || mode === undefined || (mode === "onstart" && !firstPass)) continue;
      await client.delete(apiServices, "", name);
    }
    firstPass = false;
  }

  return {
    name: "apiservice-registration",
    async run(signal) {
      await Promise.race([options.ready, new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }))]);
      if (signal.aborted) return;
      const unsubscribe = options.onServedChange(() => wake.poke());
      const unhandle = informer.addHandlers({ onDelete: () => wake.poke(), onUpdate: () => wake.poke(), onReset: () => wake.poke() });
      try {
        await runReconcileLoop(signal, wake, reconcile, options.onError);
      } finally {
        unsubscribe();
        unhandle();
      }
    },
  };
}
