import type { ApiObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import { dnsLabelProblems, goList, listOf, numberOf, recordOf, stringOf } from "./fields.js";
import type { KindWarnings } from "./kind-warnings.js";
import { podWarnings, type PodWarnings } from "./pod.js";
import { claimSpecWarnings } from "./storage.js";

/**
 * kube 1.30's warnings for the kinds that hold a pod template: the template's pod warnings at
 * its path, on create and on an update that changes the object's generation (a template or spec
 * change; a metadata-only or status write says nothing again); and for the kinds whose name ends
 * up in pod names and hostnames (Deployments, ReplicaSets, ReplicationControllers, Jobs,
 * CronJobs) a name that is not a DNS label, on create. CronJobs also warn on an update whose
 * schedule still carries a `TZ`/`CRON_TZ` prefix (allowed only where the stored one had it).
 */
export function workloadWarnings(profile: Profile): Readonly<Record<string, KindWarnings>> {
  const pods = podWarnings(profile);
  const templateAt = (path: string) => (object: ApiObject) => pods.template(recordOf(object["spec"], "template"), path);
  const generationChanged = (object: ApiObject, old: ApiObject): boolean => object.metadata.generation !== old.metadata.generation;
  const onTemplateChange =
    (warnings: (object: ApiObject) => string[]) =>
    (object: ApiObject, old: ApiObject): string[] =>
      generationChanged(object, old) ? warnings(object) : [];
  const named =
    (warnings: (object: ApiObject) => string[]) =>
    (object: ApiObject): string[] => [...nameWarnings(object), ...warnings(object)];
  const jobSpec = (spec: unknown, path: string): string[] => jobSpecWarnings(pods, profile, spec, path);
  const podTemplate = (object: ApiObject): string[] => pods.template(object["template"], "template");
  const statefulSetTemplate = templateAt("spec.template");
  const claimTemplates = (object: ApiObject, suffix: string): string[] =>
    listOf(object["spec"], "volumeClaimTemplates").flatMap((claim, index) =>
      claimSpecWarnings(recordOf(claim, "spec"), `spec.volumeClaimTemplates[${index}]${suffix}`),
    );
  return {
    PodTemplate: { onCreate: podTemplate, onUpdate: onTemplateChange(podTemplate) },
    ReplicationController: { onCreate: named(templateAt("spec.template")), onUpdate: onTemplateChange(templateAt("spec.template")) },
    Deployment: { onCreate: named(templateAt("spec.template")), onUpdate: onTemplateChange(templateAt("spec.template")) },
    ReplicaSet: { onCreate: named(templateAt("spec.template")), onUpdate: onTemplateChange(templateAt("spec.template")) },
    DaemonSet: { onCreate: templateAt("spec.template"), onUpdate: onTemplateChange(templateAt("spec.template")) },
    StatefulSet: {
      onCreate: (object) => [...statefulSetTemplate(object), ...claimTemplates(object, "")],
      // kube's update names the claim's spec `Spec` (its Go field name) in these paths.
      onUpdate: (object, old) => [...(generationChanged(object, old) ? statefulSetTemplate(object) : []), ...claimTemplates(object, ".Spec")],
    },
    Job: {
      onCreate: named((object) => jobSpec(object["spec"], "spec")),
      onUpdate: onTemplateChange((object) => jobSpec(object["spec"], "spec")),
    },
    CronJob: {
      onCreate: named((object) => jobSpec(recordOf(recordOf(object["spec"], "jobTemplate"), "spec"), "spec.jobTemplate.spec")),
      onUpdate: (object, old) => {
        const warnings = generationChanged(object, old) ? jobSpec(recordOf(recordOf(object["spec"], "jobTemplate"), "spec"), "spec.jobTemplate.spec") : [];
        // kube's path here really is `spec.spec.schedule`.
        if ((stringOf(object["spec"], "schedule") ?? "").includes("TZ"))
          warnings.push(
            `cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see ${profile.docsUrl}/concepts/workloads/controllers/cron-jobs/ for more details`,
          );
        return warnings;
      },
    },
  };
}

/** Names of workloads whose pods are named after them: a DNS label is recommended (create only: names never change). */
function nameWarnings(object: ApiObject): string[] {
  const problems = dnsLabelProblems(object.metadata.name ?? "");
  if (problems.length === 0) return [];
  return [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: ${goList(problems)}`];
}

const INDEXED_COMPLETIONS_SOFT_LIMIT = 100_000;
const INDEXED_PARALLELISM_SOFT_LIMIT = 10_000;

/** A Job's spec (a CronJob's job template too): an Indexed job too big to track failed indexes, then its pod template. */
function jobSpecWarnings(pods: PodWarnings, profile: Profile, spec: unknown, path: string): string[] {
  const warnings: string[] = [];
  if (
    stringOf(spec, "completionMode") === "Indexed" &&
    (numberOf(spec, "completions") ?? 0) > INDEXED_COMPLETIONS_SOFT_LIMIT &&
    (numberOf(spec, "parallelism") ?? 0) > INDEXED_PARALLELISM_SOFT_LIMIT
  )
    warnings.push(
      `${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, ${profile.productName} might not be able to track completedIndexes when a big number of indexes fail`,
    );
  warnings.push(...pods.template(recordOf(spec, "template"), `${path}.template`));
  return warnings;
}
