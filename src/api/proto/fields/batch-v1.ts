import type { ProtoMessages } from "../messages.js";

/** batch/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const BATCH_V1: ProtoMessages = {
  "batch.v1.CronJob": "metadata=1:meta.v1.ObjectMeta spec=2:batch.v1.CronJobSpec status=3:batch.v1.CronJobStatus",
  "batch.v1.CronJobSpec":
    "schedule=1 timeZone=8 startingDeadlineSeconds=2 concurrencyPolicy=3 suspend=4 jobTemplate=5:batch.v1.JobTemplateSpec successfulJobsHistoryLimit=6 failedJobsHistoryLimit=7",
  "batch.v1.CronJobStatus": "active=1:core.v1.ObjectReference lastScheduleTime=4:meta.v1.Time lastSuccessfulTime=5:meta.v1.Time",
  "batch.v1.Job": "metadata=1:meta.v1.ObjectMeta spec=2:batch.v1.JobSpec status=3:batch.v1.JobStatus",
  "batch.v1.JobCondition": "type=1 status=2 lastProbeTime=3:meta.v1.Time lastTransitionTime=4:meta.v1.Time reason=5 message=6",
  "batch.v1.JobSpec":
    "parallelism=1 completions=2 activeDeadlineSeconds=3 podFailurePolicy=11:batch.v1.PodFailurePolicy successPolicy=16:batch.v1.SuccessPolicy backoffLimit=7 backoffLimitPerIndex=12 maxFailedIndexes=13 selector=4:meta.v1.LabelSelector manualSelector=5 template=6:core.v1.PodTemplateSpec ttlSecondsAfterFinished=8 completionMode=9 suspend=10 podReplacementPolicy=14 managedBy=15",
  "batch.v1.JobStatus":
    "conditions=1:batch.v1.JobCondition startTime=2:meta.v1.Time completionTime=3:meta.v1.Time active=4 succeeded=5 failed=6 terminating=11 completedIndexes=7 failedIndexes=10 uncountedTerminatedPods=8:batch.v1.UncountedTerminatedPods ready=9",
  "batch.v1.JobTemplateSpec": "metadata=1:meta.v1.ObjectMeta spec=2:batch.v1.JobSpec",
  "batch.v1.PodFailurePolicy": "rules=1:batch.v1.PodFailurePolicyRule",
  "batch.v1.PodFailurePolicyOnExitCodesRequirement": "containerName=1 operator=2 values=3",
  "batch.v1.PodFailurePolicyOnPodConditionsPattern": "type=1 status=2",
  "batch.v1.PodFailurePolicyRule":
    "action=1 onExitCodes=2:batch.v1.PodFailurePolicyOnExitCodesRequirement onPodConditions=3:batch.v1.PodFailurePolicyOnPodConditionsPattern",
  "batch.v1.SuccessPolicy": "rules=1:batch.v1.SuccessPolicyRule",
  "batch.v1.SuccessPolicyRule": "succeededIndexes=1 succeededCount=2",
  "batch.v1.UncountedTerminatedPods": "succeeded=1 failed=2",
};
