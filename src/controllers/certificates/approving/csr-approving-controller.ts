import type { ApiClient, ResourceRef } from "../../../api/client.js";
import { ApiError } from "../../../api/errors.js";
import { isPlainObject, nowTimestamp, type ApiObject } from "../../../api/object.js";
import { apiGroup, type Profile } from "../../../api/profile.js";
import { objectKey, type InformerFactory } from "../../runtime/informer.js";
import type { QueueControllerSpec } from "../../runtime/queue-controller.js";
import { csrResource, hasTrueCondition, parseRequest, viewCsr, type CsrView } from "../csr.js";
import { nodeClientRule } from "../signing/signer-rules.js";

export interface CsrApprovingOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly profile: Profile;
  readonly now?: () => number;
}

/** kube's two recognizers, most specific first: the node renewing its own certificate, then any node client certificate. */
const RECOGNIZERS = [
  { subresource: "selfnodeclient", self: true, message: "Auto approving self kubelet client certificate after SubjectAccessReview." },
  { subresource: "nodeclient", self: false, message: "Auto approving kubelet client certificate after SubjectAccessReview." },
] as const;

/**
 * kube-controller-manager's `csrapproving`: approves pending requests to the node-client signer
 * that meet its rules when a SubjectAccessReview says the requester may `create`
 * `certificatesigningrequests/selfnodeclient` (the request's CN is the requester) or
 * `…/nodeclient`. Never denies: a request it does not approve stays pending for a person. On the
 * work queue, keyed by request name: only pending node-client requests are queued.
 */
export function csrApprovingController(options: CsrApprovingOptions): QueueControllerSpec {
  const { client, profile } = options;
  const resource = csrResource(profile);
  const reviews: ResourceRef = { group: apiGroup(profile, "authorization"), version: "v1", plural: "subjectaccessreviews" };
  const now = options.now ?? Date.now;
  const requests = options.informers.informer(resource);

  /** Pending (neither approved nor denied, not issued) to the node-client signer. */
  function pending(object: ApiObject): boolean {
    const csr = viewCsr(object);
    return csr.signerName === profile.nodeClientSigner && csr.certificate === "" && !hasTrueCondition(csr, "Approved") && !hasTrueCondition(csr, "Denied");
  }
  function* pendingKeys(): Iterable<string> {
    for (const object of requests.list()) if (pending(object)) yield objectKey(object);
  }

  async function allowed(csr: CsrView, subresource: string): Promise<boolean> {
    const review = await client.create(reviews, "", {
      apiVersion: `${reviews.group}/v1`,
      kind: "SubjectAccessReview",
      metadata: {},
      spec: {
        user: csr.username,
        ...(csr.userUid === "" ? {} : { uid: csr.userUid }),
        groups: [...csr.groups],
        extra: csr.extra,
        resourceAttributes: { group: resource.group, version: "*", resource: resource.plural, subresource, verb: "create" },
      },
    });
    return isPlainObject(review["status"]) && review["status"]["allowed"] === true;
  }

  async function handle(object: ApiObject): Promise<void> {
    const csr = viewCsr(object);
    if (csr.signerName !== profile.nodeClientSigner || csr.certificate !== "") return;
    if (hasTrueCondition(csr, "Approved") || hasTrueCondition(csr, "Denied")) return;
    const request = await parseRequest(csr.request);
    if (nodeClientRule(request, csr.usages) !== undefined) return;
    const commonName = request.subjectName.getField("CN")[0] ?? "";
    for (const recognizer of RECOGNIZERS) {
      if (recognizer.self && csr.username !== commonName) continue;
      if (!(await allowed(csr, recognizer.subresource))) continue;
      // metav1.Time: whole seconds, as every kube timestamp.
      const stamp = nowTimestamp(() => new Date(now()));
      const approved = {
        type: "Approved",
        status: "True",
        reason: "AutoApproved",
        message: recognizer.message,
        lastUpdateTime: stamp,
        lastTransitionTime: stamp,
      };
      const status = { ...(isPlainObject(object["status"]) ? object["status"] : {}), conditions: [...csr.conditions, approved] };
      try {
        await client.updateSubresource(resource, "", csr.name, "approval", { ...object, status });
      } catch (error) {
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
      return;
    }
  }

  return {
    name: "csrapproving",
    watch(queue) {
      const on = (object: ApiObject): void => {
        if (pending(object)) queue.add(objectKey(object));
      };
      return requests.addHandlers({
        onAdd: on,
        onUpdate: on,
        onReset: () => {
          for (const key of pendingKeys()) queue.add(key);
        },
      });
    },
    initialKeys: pendingKeys,
    async reconcile(name) {
      const object = requests.get("", name);
      if (object !== undefined && pending(object)) await handle(object);
    },
  };
}
