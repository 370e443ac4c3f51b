import {
  atLeast,
  atomic,
  between,
  bool,
  enumOf,
  int32,
  int64,
  labelSelector,
  obj,
  objectMeta,
  ref,
  req,
  set,
  str,
  time,
  withDefault,
  type SchemaNode,
} from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** batch/v1 Job and CronJob; batch/v1beta1 CronJob has the same shape. */

const nonNegative = (description?: string): SchemaNode => between(int32(description), 0, 2147483647);

const CRON_JOB = resource("CronJob runs a job on a schedule.", {
  spec: obj({
    concurrencyPolicy: withDefault(enumOf(["Allow", "Forbid", "Replace"]), "Allow"),
    failedJobsHistoryLimit: withDefault(nonNegative(), 1),
    jobTemplate: req(obj({ metadata: objectMeta(), spec: ref("batch.v1.JobSpec") }, { description: "The job to create on each run." })),
    schedule: req(str("The schedule in Cron format.")),
    startingDeadlineSeconds: int64(),
    successfulJobsHistoryLimit: withDefault(nonNegative(), 3),
    suspend: withDefault(bool(), false),
    timeZone: str(),
  }),
  status: obj({ active: atomic(ref("core.v1.ObjectReference")), lastScheduleTime: time(), lastSuccessfulTime: time() }),
});

export const BATCH_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "batch.v1.Job": resource("Job represents the configuration of a single job.", {
    spec: ref("batch.v1.JobSpec", "Desired behavior of the job."),
    status: ref("batch.v1.JobStatus", "Most recently observed status of the job."),
  }),
  "batch.v1.JobSpec": obj({
    activeDeadlineSeconds: atLeast(int64(), 0),
    backoffLimit: nonNegative("Retries before the job is failed. Defaults to 6."),
    backoffLimitPerIndex: nonNegative(),
    completionMode: enumOf(["Indexed", "NonIndexed"]),
    completions: nonNegative(),
    managedBy: str(),
    manualSelector: bool(),
    maxFailedIndexes: nonNegative(),
    parallelism: nonNegative(),
    podFailurePolicy: obj({
      rules: req(
        atomic(
          obj({
            action: req(enumOf(["Count", "FailIndex", "FailJob", "Ignore"])),
            onExitCodes: obj({ containerName: str(), operator: req(enumOf(["In", "NotIn"])), values: req(set(int32())) }),
            onPodConditions: atomic(obj({ status: req(withDefault(str(), "True")), type: req(str()) })),
          }),
        ),
      ),
    }),
    podReplacementPolicy: enumOf(["Failed", "TerminatingOrFailed"]),
    selector: labelSelector(),
    successPolicy: obj({ rules: req(atomic(obj({ succeededCount: int32(), succeededIndexes: str() }))) }),
    suspend: bool(),
    template: req(ref("core.v1.PodTemplateSpec", "The pods the job runs.")),
    ttlSecondsAfterFinished: nonNegative(),
  }),
  "batch.v1.JobStatus": obj({
    active: int32(),
    completedIndexes: str(),
    completionTime: time(),
    conditions: atomic(ref("batch.v1.JobCondition")),
    failed: int32(),
    failedIndexes: str(),
    ready: int32(),
    startTime: time(),
    succeeded: int32(),
    terminating: int32(),
    uncountedTerminatedPods: obj({ failed: set(str()), succeeded: set(str()) }),
  }),
  "batch.v1.JobCondition": obj({ lastProbeTime: time(), lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) }),
  "batch.v1.CronJob": CRON_JOB,
  "batch.v1beta1.CronJob": CRON_JOB,
};

export const BATCH_KINDS: readonly KindDeclaration[] = [
  { group: "batch", version: "v1", kind: "Job", id: "batch.v1.Job" },
  { group: "batch", version: "v1", kind: "CronJob", id: "batch.v1.CronJob" },
  { group: "batch", version: "v1beta1", kind: "CronJob", id: "batch.v1beta1.CronJob" },
];
