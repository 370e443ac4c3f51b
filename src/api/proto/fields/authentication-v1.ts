import type { ProtoMessages } from "../messages.js";

/**
 * authentication/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for
 * repeated/map fields). `ExtraValue` wraps a string list (`items=1`); its JSON form is the bare list.
 * `BoundObjectReference.uid` is declared in kube's proto with the name `uID`; the JSON name is kept here.
 */
export const AUTHENTICATION_V1: ProtoMessages = {
  "authentication.v1.BoundObjectReference": "kind=1 apiVersion=2 name=3 uid=4",
  "authentication.v1.ExtraValue": "items=1",
  "authentication.v1.SelfSubjectReview": "metadata=1:meta.v1.ObjectMeta status=2:authentication.v1.SelfSubjectReviewStatus",
  "authentication.v1.SelfSubjectReviewStatus": "userInfo=1:authentication.v1.UserInfo",
  "authentication.v1.TokenRequest": "metadata=1:meta.v1.ObjectMeta spec=2:authentication.v1.TokenRequestSpec status=3:authentication.v1.TokenRequestStatus",
  "authentication.v1.TokenRequestSpec": "audiences=1 expirationSeconds=4 boundObjectRef=3:authentication.v1.BoundObjectReference",
  "authentication.v1.TokenRequestStatus": "token=1 expirationTimestamp=2:meta.v1.Time",
  "authentication.v1.TokenReview": "metadata=1:meta.v1.ObjectMeta spec=2:authentication.v1.TokenReviewSpec status=3:authentication.v1.TokenReviewStatus",
  "authentication.v1.TokenReviewSpec": "token=1 audiences=2",
  "authentication.v1.TokenReviewStatus": "authenticated=1 user=2:authentication.v1.UserInfo audiences=4 error=3",
  "authentication.v1.UserInfo": "username=1 uid=2 groups=3 extra=4:authentication.v1.ExtraValue",
};
