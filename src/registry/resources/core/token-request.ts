import { badRequest, conflict, invalid } from "../../../api/errors.js";
import { isPlainObject, nowTimestamp, type ApiObject } from "../../../api/object.js";
import { apiGroup, type Profile } from "../../../api/profile.js";
import type { CreateOnlyHandler, CreateOnlyRequest } from "../../definition.js";

/**
 * kube's defaults and bounds for a requested token's lifetime: a TokenRequest without
 * `expirationSeconds` gets one hour (kube's `SetDefaults_TokenRequestSpec`; the 3607 seconds
 * of projected pod volumes are asked for explicitly by the ServiceAccount admission plugin).
 */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface Ref {
  readonly name: string;
  readonly uid: string;
}

/** What the token signer is asked for: the account, what the token is bound to, audiences and lifetime. */
export interface TokenRequestClaims {
  readonly namespace: string;
  readonly serviceAccount: Ref;
  readonly pod?: Ref;
  readonly secret?: Ref;
  readonly node?: Ref;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
}

export interface TokenRequestOptions {
  /** Signs a bound token; `expiresAt` in ms since the epoch. */
  readonly issue: (claims: TokenRequestClaims) => Promise<{ readonly token: string; readonly expiresAt: number }>;
  /** `--api-audiences`: the audiences of a request that names none. */
  readonly apiAudiences: readonly string[];
}

async function read(request: CreateOnlyRequest, plural: string, namespace: string, name: string): Promise<ApiObject> {
  const store = request.lookup("", "v1", plural);
  if (store === undefined) throw badRequest(`cannot bind a token to ${plural}: not served`);
  return store.get(namespace, name);
}

function refOf(object: ApiObject): Ref {
  return { name: object.metadata.name ?? "", uid: object.metadata.uid ?? "" };
}

/**
 * `POST .../serviceaccounts/{name}/token` (TokenRequest): signs a token for the account, for
 * `spec.audiences` (default the API audiences), `spec.expirationSeconds` (default 3600,
 * 600..2^32), optionally bound to a Pod or Secret in the namespace (`spec.boundObjectRef`; the
 * token dies with that object). Nothing is stored.
 */
export function tokenRequestHandler(profile: Profile, options: TokenRequestOptions): CreateOnlyHandler {
  const group = apiGroup(profile, "authentication");
  return {
    group,
    version: "v1",
    kind: "TokenRequest",
    async create(request) {
      const { namespace, name, object } = request;
      if (object.metadata.name !== undefined && object.metadata.name !== "" && object.metadata.name !== name)
        throw badRequest("the name in the URL does not match the name in the TokenRequest");
      if (object.metadata.namespace !== undefined && object.metadata.namespace !== "" && object.metadata.namespace !== namespace)
        throw badRequest("the namespace in the URL does not match the namespace in the TokenRequest");
      const spec = isPlainObject(object["spec"]) ? object["spec"] : {};
      const requested = Array.isArray(spec["audiences"]) ? spec["audiences"].filter((item): item is string => typeof item === "string" && item !== "") : [];
      const audiences = requested.length > 0 ? requested : [...options.apiAudiences];
      const expirationValue = spec["expirationSeconds"] ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
      const field = "spec.expirationSeconds";
      if (typeof expirationValue !== "number" || !Number.isInteger(expirationValue))
        throw invalid("TokenRequest", group, name, [{ type: "FieldValueInvalid", field, message: "must be an integer number of seconds" }]);
      if (expirationValue < MIN_EXPIRATION_SECONDS)
        throw invalid("TokenRequest", group, name, [
          { type: "FieldValueInvalid", field, message: `Invalid value: ${expirationValue}: may not specify a duration less than 10 minutes` },
        ]);
      if (expirationValue > MAX_EXPIRATION_SECONDS)
        throw invalid("TokenRequest", group, name, [
          { type: "FieldValueInvalid", field, message: `Invalid value: ${expirationValue}: may not specify a duration larger than 2^32 seconds` },
        ]);
      const serviceAccount = refOf(await read(request, "serviceaccounts", namespace, name));
      const claims: { pod?: Ref; secret?: Ref; node?: Ref } = {};
      const boundRef = spec["boundObjectRef"];
      if (isPlainObject(boundRef)) {
        const kind = boundRef["kind"];
        const refName = typeof boundRef["name"] === "string" ? boundRef["name"] : "";
        const apiVersion = typeof boundRef["apiVersion"] === "string" ? boundRef["apiVersion"] : "";
        // kube reads the reference's group only (any version of the core group will do).
        const slash = apiVersion.indexOf("/");
        const core = slash < 0;
        if (refName === "") throw badRequest("boundObjectRef.name is required");
        let bound: ApiObject;
        if (core && kind === "Node")
          // kube 1.30: binding to a Node needs the ServiceAccountTokenNodeBinding gate, alpha (off) until 1.31.
          throw badRequest('cannot bind token to a Node object as the "ServiceAccountTokenNodeBinding" feature-gate is disabled');
        if (core && kind === "Pod") {
          bound = await read(request, "pods", namespace, refName);
          const podSpec = isPlainObject(bound["spec"]) ? bound["spec"] : {};
          // Without the ServiceAccount admission plugin a pod that names no account runs as `default`.
          const podAccount =
            typeof podSpec["serviceAccountName"] === "string" && podSpec["serviceAccountName"] !== "" ? podSpec["serviceAccountName"] : "default";
          if (podAccount !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
          claims.pod = refOf(bound);
          const nodeName = podSpec["nodeName"];
          if (typeof nodeName === "string" && nodeName !== "") {
            try {
              claims.node = refOf(await read(request, "nodes", "", nodeName));
            } catch {
              // The node is informational for a pod-bound token; a missing one is left out.
            }
          }
        } else if (core && kind === "Secret") {
          bound = await read(request, "secrets", namespace, refName);
          claims.secret = refOf(bound);
        } else {
          // Go's GroupVersionKind.String(): `<group>/<version>, Kind=<kind>`, the core group empty (`/v1, Kind=ConfigMap`).
          throw badRequest(`cannot bind token to object of type ${core ? `/${apiVersion}` : apiVersion}, Kind=${String(kind ?? "")}`);
        }
        const expectedUid = boundRef["uid"];
        if (typeof expectedUid === "string" && expectedUid !== "" && expectedUid !== bound.metadata.uid) {
          throw conflict(
            { group: "", resource: String(kind), name: refName },
            `the UID in the bound object reference (${expectedUid}) does not match the UID in record. The object might have been deleted and then recreated`,
          );
        }
      }
      const issued = request.dryRun
        ? { token: "", expiresAt: Date.now() + expirationValue * 1000 }
        : await options.issue({ namespace, serviceAccount, ...claims, audiences, expirationSeconds: expirationValue });
      return {
        apiVersion: `${group}/v1`,
        kind: "TokenRequest",
        metadata: { name, namespace, creationTimestamp: nowTimestamp() },
        spec: { audiences, expirationSeconds: expirationValue, boundObjectRef: isPlainObject(boundRef) ? boundRef : null },
        status: { token: issued.token, expirationTimestamp: nowTimestamp(() => new Date(issued.expiresAt)) },
      };
    },
  };
}
