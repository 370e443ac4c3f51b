import type { ProtoMessages } from "../messages.js";

/** batch/v1beta1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const BATCH_V1BETA1: ProtoMessages = {
  "batch.v1beta1.CronJob": "metadata=1:meta.v1.ObjectMeta spec=2:batch.v1beta1.CronJobSpec status=3:batch.v1beta1.CronJobStatus",
  "batch.v1beta1.CronJobSpec":
    "schedule=1 timeZone=8 startingDeadlineSeconds=2 concurrencyPolicy=3 suspend=4 jobTemplate=5:batch.v1beta1.JobTemplateSpec successfulJobsHistoryLimit=6 failedJobsHistoryLimit=7",
  "batch.v1beta1.CronJobStatus": "active=1:core.v1.ObjectReference lastScheduleTime=4:meta.v1.Time lastSuccessfulTime=5:meta.v1.Time",
  "batch.v1beta1.JobTemplateSpec": "metadata=1:meta.v1.ObjectMeta spec=2:batch.v1.JobSpec",
};
