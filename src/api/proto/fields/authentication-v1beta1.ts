import type { ProtoMessages } from "../messages.js";

/**
 * authentication/v1beta1 messages (TokenReview, SelfSubjectReview): each field's wire number, and for message-typed fields the message
 * (element/value message for repeated/map fields). `ExtraValue` wraps a string list (`items=1`); its JSON form is the bare list.
 */
export const AUTHENTICATION_V1BETA1: ProtoMessages = {
  "authentication.v1beta1.ExtraValue": "items=1",
  "authentication.v1beta1.SelfSubjectReview": "metadata=1:meta.v1.ObjectMeta status=2:authentication.v1beta1.SelfSubjectReviewStatus",
  // kube's v1beta1 status carries the v1 UserInfo.
  "authentication.v1beta1.SelfSubjectReviewStatus": "userInfo=1:authentication.v1.UserInfo",
  "authentication.v1beta1.TokenReview":
    "metadata=1:meta.v1.ObjectMeta spec=2:authentication.v1beta1.TokenReviewSpec status=3:authentication.v1beta1.TokenReviewStatus",
  "authentication.v1beta1.TokenReviewSpec": "token=1 audiences=2",
  "authentication.v1beta1.TokenReviewStatus": "authenticated=1 user=2:authentication.v1beta1.UserInfo audiences=4 error=3",
  "authentication.v1beta1.UserInfo": "username=1 uid=2 groups=3 extra=4:authentication.v1beta1.ExtraValue",
};
