import { badRequest, conflict, invalid, notFound, type FieldError } from "../../../api/errors.js";
import { isPlainObject, nowTimestamp, type ApiObject } from "../../../api/object.js";
import { notSupported, required } from "../../../api/schema/field-path.js";
import type { CreateOnlyHandler, CreateOnlyRequest } from "../../definition.js";

const BINDING_TARGET = { group: "", resource: "pods/binding" } as const;

function stringField(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** kube's Binding rules: a target node by name; a kind, when given, is Node. Returns the node's name. */
function targetNode(binding: ApiObject, name: string): string {
  const target = isPlainObject(binding["target"]) ? binding["target"] : {};
  const errors: FieldError[] = [];
  const kind = stringField(target["kind"]);
  const node = stringField(target["name"]);
  if (kind !== "" && kind !== "Node") errors.push(notSupported("target.kind", kind, ["Node", "<empty>"]));
  if (node === "") errors.push(required("target.name"));
  if (errors.length > 0) throw invalid("Binding", "", name, errors);
  return node;
}

/**
 * Assigns a pod to a node (`POST bindings` and `POST pods/{name}/binding`), as the scheduler
 * does: sets `spec.nodeName`, copies the binding's annotations onto the pod and marks it
 * PodScheduled. A pod already on a node, or being deleted, answers 409; the binding's uid and
 * resourceVersion, when set, are preconditions on the pod. Answers a Success Status (201).
 */
export const BINDING_HANDLER: CreateOnlyHandler = {
  group: "",
  version: "v1",
  kind: "Binding",
  async create(request: CreateOnlyRequest): Promise<ApiObject> {
    const binding = request.object;
    const metadata = isPlainObject(binding.metadata) ? binding.metadata : {};
    const podName = stringField(metadata.name);
    if (request.name !== "" && podName !== request.name) throw badRequest("name in URL does not match name in Binding object");
    if (podName === "") throw invalid("Binding", "", "", [required("metadata.name", "name or generateName is required")]);
    const node = targetNode(binding, podName);
    const pods = request.lookup("", "v1", "pods");
    if (pods === undefined) throw notFound({ group: "", resource: "pods", name: podName });
    const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
    await pods.update(request.namespace, podName, {
      subresource: "binding",
      dryRun: request.dryRun,
      ...(request.user === undefined ? {} : { user: request.user }),
      build: (current) => {
        if (current === undefined) throw notFound({ group: "", resource: "pods", name: podName });
        if (current.metadata.deletionTimestamp !== undefined)
          throw conflict({ ...BINDING_TARGET, name: podName }, `pod ${podName} is being deleted, cannot be assigned to a host`);
        const spec = isPlainObject(current["spec"]) ? current["spec"] : {};
        const assigned = stringField(spec["nodeName"]);
        if (assigned !== "") throw conflict({ ...BINDING_TARGET, name: podName }, `pod ${podName} is already assigned to node "${assigned}"`);
        const status = isPlainObject(current["status"]) ? current["status"] : {};
        const conditions = Array.isArray(status["conditions"])
          ? status["conditions"].filter((condition) => !(isPlainObject(condition) && condition["type"] === "PodScheduled"))
          : [];
        conditions.push({ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: nowTimestamp() });
        return {
          ...current,
          // The binding's uid and resourceVersion, when given, are the store's preconditions.
          metadata: {
            ...current.metadata,
            annotations: { ...(current.metadata.annotations ?? {}), ...(annotations as Record<string, string>) },
            ...(typeof metadata.uid === "string" ? { uid: metadata.uid } : {}),
            ...(typeof metadata.resourceVersion === "string" ? { resourceVersion: metadata.resourceVersion } : {}),
          },
          spec: { ...spec, nodeName: node },
          status: { ...status, conditions },
        };
      },
    });
    return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
  },
};

/** The pod fields a binding writes; everything else stays as stored. */
export function bindPod(desired: ApiObject, old: ApiObject): ApiObject {
  const spec = isPlainObject(old["spec"]) ? old["spec"] : {};
  const desiredSpec = isPlainObject(desired["spec"]) ? desired["spec"] : {};
  const status = isPlainObject(old["status"]) ? old["status"] : {};
  const desiredStatus = isPlainObject(desired["status"]) ? desired["status"] : {};
  const annotations = desired.metadata.annotations;
  return {
    ...old,
    metadata: { ...old.metadata, ...(annotations === undefined ? {} : { annotations }) },
    spec: { ...spec, nodeName: desiredSpec["nodeName"] },
    status: { ...status, conditions: desiredStatus["conditions"] },
  };
}
