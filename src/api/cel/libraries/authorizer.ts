/**
 * kube's authorizer library for admission expressions: `authorizer.path(p).check(verb)`,
 * `authorizer.group(g).resource(r).subresource(s).namespace(n).name(x).check(verb)`,
 * `authorizer.serviceAccount(namespace, name)` (then the same builders), kube 1.31's selectors
 * on a resource check (`.fieldSelector(s)`, `.labelSelector(s)`: passed on as text, the caller
 * parses them; a bad one makes the decision `errored()`), `authorizer.requestResource` (a resource
 * check already scoped to the request's group, resource, subresource, namespace and name — kube
 * declares it as its own variable; here it is a field of the authorizer value), and on the
 * decision `allowed()`, `reason()`, `errored()`, `error()`. The caller supplies the check as a callback, so
 * this layer knows nothing of users or authorizers; checks are asynchronous and awaited by the
 * evaluator.
 */
import type { Environment } from "@marcbachmann/cel-js";

/** What an expression asks the authorizer. `serviceAccount` replaces the requester when set. */
export interface AuthorizationQuestion {
  readonly verb: string;
  readonly path?: string;
  readonly group?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** kube 1.31's `fieldSelector(…)` / `labelSelector(…)` text, unparsed. */
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
}

/** The authorizer's answer; `error` is set when it could not decide. */
export interface AuthorizationAnswer {
  readonly decision: "allow" | "deny" | "no-opinion";
  readonly reason: string;
  readonly error?: string;
}

/** The callback an admission caller provides (it closes over the requesting user). */
export type AuthorizationCheck = (question: AuthorizationQuestion) => Promise<AuthorizationAnswer>;

/** What `authorizer.requestResource` is scoped to: the request's own resource. */
export interface RequestResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The value bound to the `authorizer` variable. */
export class CelAuthorizer {
  /** `authorizer.requestResource`; without a request, a check with empty fields. */
  readonly requestResource: ResourceCheck;

  constructor(
    readonly check: AuthorizationCheck,
    readonly serviceAccount?: { readonly namespace: string; readonly name: string },
    readonly request?: RequestResource,
  ) {
    this.requestResource = new ResourceCheck(this, { ...(request ?? { group: "", resource: "", subresource: "", namespace: "", name: "" }) });
  }
}

class PathCheck {
  constructor(
    readonly root: CelAuthorizer,
    readonly path: string,
  ) {}
}

class ResourceCheck {
  constructor(
    readonly root: CelAuthorizer,
    readonly fields: Omit<AuthorizationQuestion, "verb" | "path" | "serviceAccount">,
  ) {}
  with(extra: Partial<ResourceCheck["fields"]>): ResourceCheck {
    return new ResourceCheck(this.root, { ...this.fields, ...extra });
  }
}

class Decision {
  constructor(readonly answer: AuthorizationAnswer) {}
}

async function ask(root: CelAuthorizer, question: AuthorizationQuestion): Promise<Decision> {
  try {
    return new Decision(await root.check(root.serviceAccount === undefined ? question : { ...question, serviceAccount: root.serviceAccount }));
  } catch (error) {
    return new Decision({ decision: "no-opinion", reason: "", error: error instanceof Error ? error.message : String(error) });
  }
}

const A = "kubernetes.authorization.Authorizer";
const P = "kubernetes.authorization.PathCheck";
const G = "kubernetes.authorization.GroupCheck";
const R = "kubernetes.authorization.ResourceCheck";
const D = "kubernetes.authorization.Decision";

/** The type name to declare the `authorizer` variable with. */
export const AUTHORIZER_TYPE = A;

class GroupCheck {
  constructor(
    readonly root: CelAuthorizer,
    readonly group: string,
  ) {}
}

/** Registers the authorizer types and functions on `env`. */
export function registerAuthorizerLibrary(env: Environment): void {
  env
    .registerType(A, { ctor: CelAuthorizer, fields: { requestResource: R } })
    .registerType(P, PathCheck)
    .registerType(G, GroupCheck)
    .registerType(R, ResourceCheck)
    .registerType(D, Decision)
    .registerFunction(`${A}.path(string): ${P}`, (root: CelAuthorizer, path: string) => new PathCheck(root, path))
    .registerFunction(`${A}.group(string): ${G}`, (root: CelAuthorizer, group: string) => new GroupCheck(root, group))
    .registerFunction(
      `${A}.serviceAccount(string, string): ${A}`,
      (root: CelAuthorizer, namespace: string, name: string) => new CelAuthorizer(root.check, { namespace, name }, root.request),
    )
    .registerFunction(`${G}.resource(string): ${R}`, (group: GroupCheck, resource: string) => new ResourceCheck(group.root, { group: group.group, resource }))
    .registerFunction(`${R}.subresource(string): ${R}`, (check: ResourceCheck, subresource: string) => check.with({ subresource }))
    .registerFunction(`${R}.namespace(string): ${R}`, (check: ResourceCheck, namespace: string) => check.with({ namespace }))
    .registerFunction(`${R}.name(string): ${R}`, (check: ResourceCheck, name: string) => check.with({ name }))
    .registerFunction(`${R}.fieldSelector(string): ${R}`, (check: ResourceCheck, fieldSelector: string) => check.with({ fieldSelector }))
    .registerFunction(`${R}.labelSelector(string): ${R}`, (check: ResourceCheck, labelSelector: string) => check.with({ labelSelector }))
    .registerFunction(`${R}.check(string): ${D}`, (check: ResourceCheck, verb: string) => ask(check.root, { ...check.fields, verb }))
    .registerFunction(`${P}.check(string): ${D}`, (check: PathCheck, verb: string) => ask(check.root, { path: check.path, verb }))
    .registerFunction(`${D}.allowed(): bool`, (decision: Decision) => decision.answer.decision === "allow")
    .registerFunction(`${D}.reason(): string`, (decision: Decision) => decision.answer.reason)
    .registerFunction(`${D}.errored(): bool`, (decision: Decision) => decision.answer.error !== undefined)
    .registerFunction(`${D}.error(): string`, (decision: Decision) => decision.answer.error ?? "");
}
