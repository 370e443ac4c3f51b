import { atomic, bool, int64, obj, req, str, strings, time, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { STRING_LIST_MAP, resource } from "./meta.js";

/** authentication.<apiDomain> and authorization.<apiDomain>: create-only review kinds and TokenRequest. */

const USER_INFO = obj({ extra: STRING_LIST_MAP, groups: strings(), uid: str(), username: str() });
const RESOURCE_ATTRIBUTES = obj({ group: str(), name: str(), namespace: str(), resource: str(), subresource: str(), verb: str(), version: str() });
const NON_RESOURCE_ATTRIBUTES = obj({ path: str(), verb: str() });
const ACCESS_STATUS = obj({ allowed: req(bool()), denied: bool(), evaluationError: str(), reason: str() });
const SUBJECT_ACCESS_SPEC = obj({
  extra: STRING_LIST_MAP,
  groups: strings(),
  nonResourceAttributes: NON_RESOURCE_ATTRIBUTES,
  resourceAttributes: RESOURCE_ATTRIBUTES,
  uid: str(),
  user: str(),
});

const TOKEN_REVIEW = resource("TokenReview attempts to authenticate a token to a known user.", {
  spec: req(obj({ audiences: strings(), token: str("The opaque bearer token.") })),
  status: obj({ audiences: strings(), authenticated: bool(), error: str(), user: USER_INFO }),
});

const SELF_SUBJECT_REVIEW = resource("SelfSubjectReview returns the user attributes the server sees for the caller.", {
  status: obj({ userInfo: USER_INFO }),
});

export const AUTH_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "authentication.v1.TokenReview": TOKEN_REVIEW,
  "authentication.v1beta1.TokenReview": TOKEN_REVIEW,
  "authentication.v1.SelfSubjectReview": SELF_SUBJECT_REVIEW,
  "authentication.v1beta1.SelfSubjectReview": SELF_SUBJECT_REVIEW,
  "authentication.v1.TokenRequest": resource("TokenRequest requests a token for a service account.", {
    spec: req(
      obj({
        audiences: strings("Intended audiences; empty means the API server's."),
        boundObjectRef: obj({ apiVersion: str(), kind: str(), name: str(), uid: str() }),
        expirationSeconds: int64(),
      }),
    ),
    status: obj({ expirationTimestamp: req(time()), token: req(str()) }),
  }),
  "authorization.v1.SubjectAccessReview": resource("SubjectAccessReview checks whether a user or group can perform an action.", {
    spec: req(SUBJECT_ACCESS_SPEC),
    status: ACCESS_STATUS,
  }),
  "authorization.v1.LocalSubjectAccessReview": resource("LocalSubjectAccessReview checks an action in one namespace.", {
    spec: req(SUBJECT_ACCESS_SPEC),
    status: ACCESS_STATUS,
  }),
  "authorization.v1.SelfSubjectAccessReview": resource("SelfSubjectAccessReview checks whether the caller can perform an action.", {
    spec: req(obj({ nonResourceAttributes: NON_RESOURCE_ATTRIBUTES, resourceAttributes: RESOURCE_ATTRIBUTES })),
    status: ACCESS_STATUS,
  }),
  "authorization.v1.SelfSubjectRulesReview": resource("SelfSubjectRulesReview lists the actions the caller can perform in a namespace.", {
    spec: req(obj({ namespace: str() })),
    status: obj({
      evaluationError: str(),
      incomplete: bool(),
      nonResourceRules: atomic(obj({ nonResourceURLs: strings(), verbs: req(strings()) })),
      resourceRules: atomic(obj({ apiGroups: strings(), resourceNames: strings(), resources: strings(), verbs: req(strings()) })),
    }),
  }),
};

export const AUTH_KINDS: readonly KindDeclaration[] = [
  ...kindsOf("authentication", { domain: true }, { v1: ["TokenReview", "SelfSubjectReview", "TokenRequest"], v1beta1: ["TokenReview", "SelfSubjectReview"] }),
  ...kindsOf(
    "authorization",
    { domain: true },
    { v1: ["SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview"] },
  ),
];
