import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import type { Registry, Store } from "../../registry/index.js";
import type { BootstrapConfiguration } from "./bootstrap.js";
import type { FlowControl } from "./flow-control.js";

/** JSON with object keys sorted, so specs compare by value whatever order their fields were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

async function readOrUndefined(store: Store, name: string): Promise<ApiObject | undefined> {
  try {
    return await store.get("", name);
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return undefined;
    throw error;
  }
}

/**
 * The `exempt` priority level's `spec.exempt` (its nominal shares and lendable percent) is the
 * administrator's to tune since kube 1.28: validation allows changing it and the ensurer keeps it.
 */
function keepingExemptSettings(level: boolean, wanted: ApiObject, current: ApiObject): ApiObject {
  if (!level || wanted.metadata.name !== "exempt") return wanted;
  const spec = current["spec"];
  const exempt = typeof spec === "object" && spec !== null ? (spec as Record<string, unknown>)["exempt"] : undefined;
  if (exempt === undefined) return wanted;
  return { ...wanted, spec: { ...(wanted["spec"] as Record<string, unknown>), exempt } };
}

/**
 * Keeps kube's bootstrap objects present, as kube-apiserver does at start: a missing object is
 * created; a mandatory one whose spec differs is put back; a suggested one is put back only while
 * its auto-update annotation is "true" (an operator sets it "false" to keep their changes).
 * Objects another writer changed meanwhile are read again (up to five tries).
 */
export async function ensureBootstrapConfiguration(registry: Registry, bootstrap: BootstrapConfiguration): Promise<void> {
  const levels = registry.find(bootstrap.group, "v1", "prioritylevelconfigurations");
  const schemas = registry.find(bootstrap.group, "v1", "flowschemas");
  if (levels === undefined || schemas === undefined) return;
  const work: [Store, ApiObject, boolean][] = [
    ...bootstrap.mandatoryPriorityLevels.map((object): [Store, ApiObject, boolean] => [levels, object, true]),
    ...bootstrap.suggestedPriorityLevels.map((object): [Store, ApiObject, boolean] => [levels, object, false]),
    ...bootstrap.mandatoryFlowSchemas.map((object): [Store, ApiObject, boolean] => [schemas, object, true]),
    ...bootstrap.suggestedFlowSchemas.map((object): [Store, ApiObject, boolean] => [schemas, object, false]),
  ];
  await Promise.all(
    work.map(async ([store, bootstrapObject, mandatory]) => {
      const name = bootstrapObject.metadata.name ?? "";
      for (let attempt = 1; ; attempt++) {
        try {
          const current = await readOrUndefined(store, name);
          if (current === undefined) {
            await store.create("", bootstrapObject);
            return;
          }
          const wanted = keepingExemptSettings(store === levels, bootstrapObject, current);
          const autoupdate = current.metadata.annotations?.[bootstrap.autoupdateAnnotation] === "true";
          if (!mandatory && !autoupdate) return;
          // The stored spec is the wanted one as written: no dry run (admission, defaulting, managedFields) needed to say so.
          if (autoupdate && canonical(wanted["spec"]) === canonical(current["spec"])) return;
          const defaulted = await store.create("", wanted, { dryRun: true }).catch(() => undefined);
          if (canonical((defaulted ?? wanted)["spec"]) === canonical(current["spec"]) && autoupdate) return;
          await store.update("", name, {
            build: (latest) => ({
              ...(latest ?? current),
              metadata: {
                ...(latest ?? current).metadata,
                annotations: { ...(latest ?? current).metadata.annotations, [bootstrap.autoupdateAnnotation]: "true" },
              },
              spec: wanted["spec"],
            }),
          });
          return;
        } catch (error) {
          const retryable = error instanceof ApiError && (error.code === 409 || error.code === 404);
          if (!retryable || attempt >= 5) throw error;
        }
      }
    }),
  );
}

/** How often kube's APF configuration ensurer runs again after the start (kube: every minute). */
export const ENSURE_PERIOD_MS = 60_000;

/**
 * Runs ensureBootstrapConfiguration every `periodMs` (after the start's own run), as kube-apiserver's
 * post-start hook keeps doing: a mandatory object changed or deleted through the API is put back
 * within a minute, a suggested one too while its auto-update annotation is "true". One run at a
 * time; errors go to `onError` and the next tick tries again. Returns the function that stops it.
 */
export function keepBootstrapConfiguration(
  registry: Registry,
  bootstrap: BootstrapConfiguration,
  options: { readonly periodMs?: number; readonly onError: (error: unknown) => void },
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    ensureBootstrapConfiguration(registry, bootstrap)
      .catch(options.onError)
      .finally(() => {
        running = false;
      });
  }, options.periodMs ?? ENSURE_PERIOD_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** kube's Dangling condition of a FlowSchema: True when its priority level does not exist. */
export function danglingCondition(priorityLevel: string, dangling: boolean, now: Date): Record<string, string> {
  return {
    type: "Dangling",
    status: dangling ? "True" : "False",
    lastTransitionTime: `${now.toISOString().slice(0, 19)}Z`,
    reason: dangling ? "NotFound" : "Found",
    message: dangling
      ? `This FlowSchema references the PriorityLevelConfiguration object named "${priorityLevel}" but there is no such object`
      : `This FlowSchema references the PriorityLevelConfiguration object named "${priorityLevel}" and it exists`,
  };
}

function conditionsOf(object: ApiObject): Record<string, unknown>[] {
  const status = object["status"];
  const conditions = typeof status === "object" && status !== null ? (status as Record<string, unknown>)["conditions"] : undefined;
  return Array.isArray(conditions) ? conditions.filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null) : [];
}

/**
 * Writes each FlowSchema's Dangling condition where it is missing or wrong, reading the objects
 * flow control follows; `schemas` is the FlowSchemas' store, written through its status.
 */
export async function updateDanglingConditions(schemas: Store, flowControl: FlowControl, now: () => Date = () => new Date()): Promise<void> {
  const existing = new Set(flowControl.priorityLevels().map((level) => level.name));
  for (const object of flowControl.flowSchemaObjects()) {
    const spec = object["spec"];
    const priorityLevel =
      typeof spec === "object" && spec !== null
        ? String((spec as { priorityLevelConfiguration?: { name?: unknown } }).priorityLevelConfiguration?.name ?? "")
        : "";
    const dangling = !existing.has(priorityLevel);
    const current = conditionsOf(object).find((condition) => condition["type"] === "Dangling");
    if (current !== undefined && current["status"] === (dangling ? "True" : "False")) continue;
    const condition = danglingCondition(priorityLevel, dangling, now());
    try {
      await schemas.update("", object.metadata.name ?? "", {
        subresource: "status",
        build: (latest) => {
          const base = latest ?? object;
          const others = conditionsOf(base).filter((item) => item["type"] !== "Dangling");
          return { ...base, status: { conditions: [...others, condition] } };
        },
      });
    } catch (error) {
      // Deleted or changed meanwhile: the next change of the objects brings another pass.
      if (!(error instanceof ApiError && (error.code === 404 || error.code === 409))) throw error;
    }
  }
}
