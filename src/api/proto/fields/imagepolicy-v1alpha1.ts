import type { ProtoMessages } from "../messages.js";

/** imagepolicy/v1alpha1 messages (ImageReview): each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const IMAGEPOLICY_V1ALPHA1: ProtoMessages = {
  "imagepolicy.v1alpha1.ImageReview":
    "metadata=1:meta.v1.ObjectMeta spec=2:imagepolicy.v1alpha1.ImageReviewSpec status=3:imagepolicy.v1alpha1.ImageReviewStatus",
  "imagepolicy.v1alpha1.ImageReviewContainerSpec": "image=1",
  "imagepolicy.v1alpha1.ImageReviewSpec": "containers=1:imagepolicy.v1alpha1.ImageReviewContainerSpec annotations=2 namespace=3",
  "imagepolicy.v1alpha1.ImageReviewStatus": "allowed=1 reason=2 auditAnnotations=3",
};
