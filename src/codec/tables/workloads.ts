import type { ApiObject } from "../../api/object.js";
import { humanDuration } from "../../util/human-duration.js";
import { boolean, integer, text, wide, AGE, NAME, type ColumnSpec, type KindTables } from "./column.js";
import { age, at, conditionTrue, containerCells, formatLabels, formatSelector, list, num, optionalFlag, record, selectorString, str } from "./format.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);
const status = (object: ApiObject): Record<string, unknown> => record(object["status"]);

/** Containers, Images and (unless `selector` is false) Selector of a pod template at `templatePath`, shown with `-o wide`. */
function templateColumns(templatePath: string, selector: ((object: ApiObject) => string) | false): ColumnSpec[] {
  const podSpec = (object: ApiObject): unknown => at(object, `${templatePath}.spec`);
  const columns = [
    wide(text("Containers", "The template's container names.", (object) => containerCells(podSpec(object)).names)),
    wide(text("Images", "The template's container images.", (object) => containerCells(podSpec(object)).images)),
  ];
  if (selector !== false) columns.push(wide(text("Selector", "The labels that select the pods.", selector)));
  return columns;
}

/** `ready/desired` pods, desired defaulting to one. */
const readyOfDesired = (object: ApiObject): string => `${num(status(object)["readyReplicas"])}/${num(spec(object)["replicas"] ?? 1)}`;

function jobStatus(job: ApiObject): string {
  const conditions = status(job)["conditions"];
  if (conditionTrue(conditions, "Complete")) return "Complete";
  if (conditionTrue(conditions, "Failed")) return "Failed";
  if (job.metadata.deletionTimestamp !== undefined) return "Terminating";
  if (conditionTrue(conditions, "Suspended")) return "Suspended";
  if (conditionTrue(conditions, "FailureTarget")) return "FailureTarget";
  return "Running";
}

/** `succeeded/completions`; a job without completions runs until one pod succeeds (`0/1 of 3` with parallelism). */
function jobCompletions(job: ApiObject): string {
  const succeeded = num(status(job)["succeeded"]);
  const completions = spec(job)["completions"];
  if (typeof completions === "number") return `${succeeded}/${completions}`;
  const parallelism = num(spec(job)["parallelism"]);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** From start to completion, or to now while running; "" before the job started. */
function jobDuration(job: ApiObject, now: number): string {
  const start = Date.parse(str(status(job)["startTime"]));
  if (Number.isNaN(start)) return "";
  const completion = Date.parse(str(status(job)["completionTime"]));
  return humanDuration((Number.isNaN(completion) ? now : completion) - start);
}

/** The controlling owner as `kind.group/name` in lower case (`statefulset.apps/web`), `<none>` without one. */
function controllerOf(object: ApiObject): string {
  const owner = (object.metadata.ownerReferences ?? []).find((reference) => reference.controller === true);
  if (owner === undefined) return "<none>";
  const apiVersion = owner.apiVersion;
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const groupKind = group === "" ? owner.kind : `${owner.kind}.${group}`;
  return groupKind === "" ? owner.name : `${groupKind.toLowerCase()}/${owner.name}`;
}

export const APPS_TABLES: KindTables = {
  Deployment: [
    NAME,
    text("Ready", "Ready pods out of those wanted.", readyOfDesired),
    text("Up-to-date", "Pods running the current template.", (object) => num(status(object)["updatedReplicas"])),
    text("Available", "Pods ready for at least minReadySeconds.", (object) => num(status(object)["availableReplicas"])),
    AGE,
    ...templateColumns("spec.template", (object) => selectorString(spec(object)["selector"]) ?? "<invalid>"),
  ],
  ReplicaSet: [
    NAME,
    integer("Desired", "Pods wanted.", (object) => num(spec(object)["replicas"] ?? 1)),
    integer("Current", "Pods that exist.", (object) => num(status(object)["replicas"])),
    integer("Ready", "Pods that are ready.", (object) => num(status(object)["readyReplicas"])),
    AGE,
    ...templateColumns("spec.template", (object) => formatSelector(spec(object)["selector"])),
  ],
  StatefulSet: [NAME, text("Ready", "Ready pods out of those wanted.", readyOfDesired), AGE, ...templateColumns("spec.template", false)],
  DaemonSet: [
    NAME,
    integer("Desired", "Nodes that should run the pod.", (object) => num(status(object)["desiredNumberScheduled"])),
    integer("Current", "Nodes running the pod.", (object) => num(status(object)["currentNumberScheduled"])),
    integer("Ready", "Nodes whose pod is ready.", (object) => num(status(object)["numberReady"])),
    integer("Up-to-date", "Nodes running the current template.", (object) => num(status(object)["updatedNumberScheduled"])),
    integer("Available", "Nodes whose pod is available.", (object) => num(status(object)["numberAvailable"])),
    text("Node Selector", "The node labels the pods require.", (object) => formatLabels(at(object, "spec.template.spec.nodeSelector"))),
    AGE,
    ...templateColumns("spec.template", (object) => formatSelector(spec(object)["selector"])),
  ],
  ControllerRevision: [
    NAME,
    text("Controller", "The object this revision belongs to.", controllerOf),
    text("Revision", "The revision number.", (object) => num(object["revision"])),
    AGE,
  ],
};

export const BATCH_TABLES: KindTables = {
  Job: [
    NAME,
    text("Status", "Complete, Failed, Terminating, Suspended, FailureTarget or Running.", jobStatus),
    text("Completions", "Succeeded pods out of those needed.", jobCompletions),
    text("Duration", "How long the job ran, or has been running.", (object, context) => jobDuration(object, context.now)),
    AGE,
    ...templateColumns("spec.template", (object) => formatSelector(spec(object)["selector"])),
  ],
  CronJob: [
    NAME,
    text("Schedule", "The cron schedule.", (object) => str(spec(object)["schedule"])),
    text("Timezone", "The time zone of the schedule.", (object) => str(spec(object)["timeZone"]) || "<none>"),
    boolean("Suspend", "Whether new runs are held back.", (object) => optionalFlag(spec(object)["suspend"])),
    integer("Active", "Jobs now running.", (object) => list(status(object)["active"]).length),
    text("Last Schedule", "Time since a job was last scheduled.", (object, context) =>
      status(object)["lastScheduleTime"] === undefined ? "<none>" : age(status(object)["lastScheduleTime"], context.now),
    ),
    AGE,
    ...templateColumns("spec.jobTemplate.spec.template", (object) => formatSelector(at(object, "spec.jobTemplate.spec.selector"))),
  ],
};
