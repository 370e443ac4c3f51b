import type { ProtoMessages } from "../messages.js";

/**
 * authorization/v1 messages (the four access reviews): each field's wire number, and for message-typed fields the message
 * (element/value message for repeated/map fields). `ExtraValue` wraps a string list (`items=1`); its JSON form is the bare list.
 */
export const AUTHORIZATION_V1: ProtoMessages = {
  "authorization.v1.ExtraValue": "items=1",
  "authorization.v1.FieldSelectorAttributes": "rawSelector=1 requirements=2:meta.v1.FieldSelectorRequirement",
  "authorization.v1.LabelSelectorAttributes": "rawSelector=1 requirements=2:meta.v1.LabelSelectorRequirement",
  "authorization.v1.LocalSubjectAccessReview":
    "metadata=1:meta.v1.ObjectMeta spec=2:authorization.v1.SubjectAccessReviewSpec status=3:authorization.v1.SubjectAccessReviewStatus",
  "authorization.v1.NonResourceAttributes": "path=1 verb=2",
  "authorization.v1.NonResourceRule": "verbs=1 nonResourceURLs=2",
  "authorization.v1.ResourceAttributes":
    "namespace=1 verb=2 group=3 version=4 resource=5 subresource=6 name=7 fieldSelector=8:authorization.v1.FieldSelectorAttributes " +
    "labelSelector=9:authorization.v1.LabelSelectorAttributes",
  "authorization.v1.ResourceRule": "verbs=1 apiGroups=2 resources=3 resourceNames=4",
  "authorization.v1.SelfSubjectAccessReview":
    "metadata=1:meta.v1.ObjectMeta spec=2:authorization.v1.SelfSubjectAccessReviewSpec status=3:authorization.v1.SubjectAccessReviewStatus",
  "authorization.v1.SelfSubjectAccessReviewSpec":
    "resourceAttributes=1:authorization.v1.ResourceAttributes nonResourceAttributes=2:authorization.v1.NonResourceAttributes",
  "authorization.v1.SelfSubjectRulesReview":
    "metadata=1:meta.v1.ObjectMeta spec=2:authorization.v1.SelfSubjectRulesReviewSpec status=3:authorization.v1.SubjectRulesReviewStatus",
  "authorization.v1.SelfSubjectRulesReviewSpec": "namespace=1",
  "authorization.v1.SubjectAccessReview":
    "metadata=1:meta.v1.ObjectMeta spec=2:authorization.v1.SubjectAccessReviewSpec status=3:authorization.v1.SubjectAccessReviewStatus",
  "authorization.v1.SubjectAccessReviewSpec":
    "resourceAttributes=1:authorization.v1.ResourceAttributes nonResourceAttributes=2:authorization.v1.NonResourceAttributes user=3 groups=4 " +
    "extra=5:authorization.v1.ExtraValue uid=6",
  "authorization.v1.SubjectAccessReviewStatus": "allowed=1 denied=4 reason=2 evaluationError=3",
  "authorization.v1.SubjectRulesReviewStatus":
    "resourceRules=1:authorization.v1.ResourceRule nonResourceRules=2:authorization.v1.NonResourceRule incomplete=3 evaluationError=4",
};
