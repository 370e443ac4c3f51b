import { atomic, bool, obj, req, str, stringMap, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * imagepolicy.<apiDomain>/v1alpha1: ImageReview, the document the ImagePolicyWebhook admission
 * plugin posts to its backend and reads the verdict from. The server exchanges it but does not
 * serve it (as kube), so it is declared apart from the served kinds.
 */
export const IMAGEPOLICY_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "imagepolicy.v1alpha1.ImageReview": resource("ImageReview checks whether the images of a pod may run.", {
    spec: req(imageReviewSpec()),
    status: obj({
      allowed: req(bool("Whether all images may run.")),
      auditAnnotations: stringMap("Annotations the admission plugin adds to the audit event, under its own prefix."),
      reason: str("Why the pod is not allowed; set when allowed is false."),
    }),
  }),
};

function imageReviewSpec(): SchemaNode {
  return obj({
    annotations: stringMap("The pod's annotations matching `*.image-policy.<keyDomain>/*`, passed through unvalidated."),
    containers: atomic(obj({ image: str("The image, as written in the pod.") })),
    namespace: str("The namespace the pod is created in."),
  });
}

export const IMAGEPOLICY_KINDS: readonly KindDeclaration[] = kindsOf("imagepolicy", { domain: true }, { v1alpha1: ["ImageReview"] });
