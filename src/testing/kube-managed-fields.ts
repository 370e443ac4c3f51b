/**
 * kube-apiserver's managedFields entry (FieldsV1) for an Update that created a Deployment of one
 * container (`crud-sha256-1`) with labels `app: crud` and three replicas: a real create by
 * GoogleCloudConsole found in a public repository (facts about kube's output). Non-pointer structs
 * (`spec`, `strategy`, `template`, the template's `metadata` and `spec`) carry no `.`; labels, list
 * items and the pointer struct `rollingUpdate` do.
 */
export const KUBE_DEPLOYMENT_CREATE_FIELDS = {
  "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
  "f:spec": {
    "f:progressDeadlineSeconds": {},
    "f:replicas": {},
    "f:revisionHistoryLimit": {},
    "f:selector": {},
    "f:strategy": { "f:rollingUpdate": { ".": {}, "f:maxSurge": {}, "f:maxUnavailable": {} }, "f:type": {} },
    "f:template": {
      "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
      "f:spec": {
        "f:containers": {
          'k:{"name":"crud-sha256-1"}': {
            ".": {},
            "f:image": {},
            "f:imagePullPolicy": {},
            "f:name": {},
            "f:resources": {},
            "f:terminationMessagePath": {},
            "f:terminationMessagePolicy": {},
          },
        },
        "f:dnsPolicy": {},
        "f:restartPolicy": {},
        "f:schedulerName": {},
        "f:securityContext": {},
        "f:terminationGracePeriodSeconds": {},
      },
    },
  },
};
