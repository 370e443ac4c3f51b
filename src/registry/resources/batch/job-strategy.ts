import type { ApiObject } from "../../../api/object.js";
import type { Strategy } from "../../definition.js";
import { ensureRecord, recordAt, stringMapAt } from "../../../api/schema/rules/values.js";

/**
 * The prefixed label keys kube's Job strategy writes (`batch.<keyDomain>/…`); the legacy
 * unprefixed `job-name` and `controller-uid` are written beside them.
 */
interface JobLabelKeys {
  readonly controllerUid: string;
  readonly jobName: string;
}

function labelKeys(keyDomain: string): JobLabelKeys {
  return { controllerUid: `batch.${keyDomain}/controller-uid`, jobName: `batch.${keyDomain}/job-name` };
}

/**
 * kube's selector generation for a Job without `spec.manualSelector: true`: the pod template gets
 * `job-name` and `controller-uid` labels (prefixed and legacy; ones the client set are kept, and
 * validation judges them), and the selector matches the prefixed controller-uid, so pods of this
 * Job only ever match this Job. Needs the uid, so it runs at create, after the uid is stamped.
 */
function generateSelector(job: ApiObject, keys: JobLabelKeys): void {
  const spec = ensureRecord(job, "spec");
  if (spec["manualSelector"] === true) return;
  const templateLabels = ensureRecord(ensureRecord(ensureRecord(spec, "template"), "metadata"), "labels");
  const name = job.metadata.name ?? "";
  const uid = job.metadata.uid ?? "";
  for (const key of ["job-name", keys.jobName]) templateLabels[key] ??= name;
  for (const key of ["controller-uid", keys.controllerUid]) templateLabels[key] ??= uid;
  const matchLabels = ensureRecord(ensureRecord(spec, "selector"), "matchLabels");
  matchLabels[keys.controllerUid] ??= uid;
}

/**
 * kube's Job defaulting of the object's own labels, which it applies on every read from storage:
 * a Job without labels shows its pod template's (after generation, so the generated ones too).
 */
function defaultLabelsFromTemplate(job: ApiObject): void {
  if (job.metadata.labels !== undefined && Object.keys(job.metadata.labels).length > 0) return;
  const labels = stringMapAt(recordAt(recordAt(recordAt(job, "spec"), "template"), "metadata"), "labels");
  if (Object.keys(labels).length > 0) job.metadata.labels = labels;
}

/** batch/v1 Jobs: selector generation at create, labels defaulted from the template. */
export function jobStrategy(keyDomain: string): Partial<Strategy> {
  const keys = labelKeys(keyDomain);
  return {
    prepareForCreate(object) {
      generateSelector(object, keys);
      defaultLabelsFromTemplate(object);
    },
    prepareForUpdate(object) {
      defaultLabelsFromTemplate(object);
    },
  };
}
