import { randomUUID } from "node:crypto";
import { internalError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import { readTarget, WebhookCallError, type HookCall } from "../../../admission/webhook/index.js";
import type { Conversion } from "../../definition.js";

/** What conversion webhooks are called through: the server's webhook client pool (admission's). */
export interface ConversionWebhookOptions {
  readonly post: (hook: HookCall, body: unknown) => Promise<unknown>;
  /** `apiextensions.<apiDomain>`: the group of the ConversionReview sent. */
  readonly reviewGroup: string;
  /** Request uids (tests). */
  readonly newUid?: () => string;
}

/** ConversionReview versions this server speaks, in its order of preference. */
const REVIEW_VERSIONS = ["v1", "v1beta1"];
/** kube calls conversion webhooks with a 30 s timeout. */
const TIMEOUT_SECONDS = 30;

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/**
 * A CustomResourceDefinition's conversion webhook (`spec.conversion.strategy: Webhook`) as a
 * Conversion: the objects not yet at the wanted apiVersion go in one ConversionReview (the
 * first of `conversionReviewVersions` this server speaks) and come back converted. A failed
 * call, a `Failure` result or a malformed answer fails the whole batch with 500 "conversion
 * webhook for <group/version, Kind=kind> failed: <message>", as kube's webhook converter does.
 * Converted objects keep their original metadata except labels and annotations (kube restores
 * the rest). Undefined when the definition converts with `None`.
 */
export function webhookConversion(crd: ApiObject, kind: string, options: ConversionWebhookOptions): Conversion | undefined {
  const conversion = record(record(crd["spec"])["conversion"]);
  if (conversion["strategy"] !== "Webhook") return undefined;
  const webhook = record(conversion["webhook"]);
  const clientConfig = record(webhook["clientConfig"]);
  const caData = clientConfig["caBundle"];
  const accepted = Array.isArray(webhook["conversionReviewVersions"]) ? webhook["conversionReviewVersions"] : [];
  const reviewVersion = accepted.find((version): version is string => typeof version === "string" && REVIEW_VERSIONS.includes(version));
  const hook: HookCall = {
    id: `conversion/${crd.metadata.name ?? ""}`,
    target: readTarget(clientConfig),
    caBundle: typeof caData === "string" && caData !== "" ? Buffer.from(caData, "base64").toString("utf8") : undefined,
    clientKey: JSON.stringify([clientConfig["url"], clientConfig["service"], caData]),
    timeoutSeconds: TIMEOUT_SECONDS,
  };
  const newUid = options.newUid ?? randomUUID;
  const reviewApiVersion = `${options.reviewGroup}/${reviewVersion ?? ""}`;
  return {
    async convert(objects, apiVersion) {
      if (objects.length === 0) return [];
      const from = `${String(objects[0]?.apiVersion ?? "")}, Kind=${kind}`;
      const fail = (message: string): never => {
        throw internalError(`conversion webhook for ${from} failed: ${message}`);
      };
      if (reviewVersion === undefined) return fail(`webhook does not accept known ConversionReview versions (${REVIEW_VERSIONS.join(", ")})`);
      const uid = newUid();
      let reply: unknown;
      try {
        reply = await options.post(hook, {
          apiVersion: reviewApiVersion,
          kind: "ConversionReview",
          request: { uid, desiredAPIVersion: apiVersion, objects },
        });
      } catch (error) {
        // kube's converter reports the REST client's error as it is (no admission prefix).
        return fail(error instanceof WebhookCallError ? error.clientError : error instanceof Error ? error.message : String(error));
      }
      const review = record(reply);
      if (review["apiVersion"] !== reviewApiVersion || review["kind"] !== "ConversionReview")
        return fail(
          `expected webhook response of ${reviewApiVersion}, Kind=ConversionReview, got ${String(review["apiVersion"])}, Kind=${String(review["kind"])}`,
        );
      if (!isPlainObject(review["response"])) return fail("no response provided");
      const response = review["response"];
      if (response["uid"] !== uid) return fail(`expected response uid "${uid}", got "${String(response["uid"])}"`);
      const result = record(response["result"]);
      if (result["status"] !== "Success") {
        const message = typeof result["message"] === "string" && result["message"] !== "" ? result["message"] : undefined;
        return message === undefined ? fail("unspecified reason") : fail(message);
      }
      const converted = Array.isArray(response["convertedObjects"]) ? response["convertedObjects"] : [];
      if (converted.length !== objects.length) return fail(`returned ${converted.length} objects, expected ${objects.length}`);
      return objects.map((original, index) => restoreMetadata(original, converted[index], { index, apiVersion, kind, fail }));
    },
  };
}

/** One converted object, checked and with the original's metadata except labels and annotations. */
function restoreMetadata(
  original: ApiObject,
  value: unknown,
  context: { readonly index: number; readonly apiVersion: string; readonly kind: string; readonly fail: (message: string) => never },
): ApiObject {
  const where = `invalid converted object at index ${context.index}`;
  if (!isPlainObject(value)) return context.fail(`${where}: not an object`);
  if (value["apiVersion"] !== context.apiVersion)
    return context.fail(`${where}: invalid apiVersion "${String(value["apiVersion"])}", expected "${context.apiVersion}"`);
  if (value["kind"] !== original.kind) return context.fail(`${where}: invalid kind "${String(value["kind"])}", expected "${String(original.kind)}"`);
  const metadata = value["metadata"];
  if (metadata !== undefined && !isPlainObject(metadata)) return context.fail(`${where}: invalid metadata: not an object`);
  const restored = { ...original.metadata };
  for (const key of ["labels", "annotations"] as const) {
    const given = metadata?.[key];
    if (given === undefined) delete restored[key];
    else if (isPlainObject(given) && Object.values(given).every((item) => typeof item === "string")) restored[key] = given as Record<string, string>;
    else return context.fail(`${where}: invalid metadata: ${key} must be a map of strings`);
  }
  return { ...value, apiVersion: context.apiVersion, kind: context.kind, metadata: restored } as ApiObject;
}
