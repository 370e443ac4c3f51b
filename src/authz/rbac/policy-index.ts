import { serviceAccountUserName } from "../../auth/service-account/claims.js";
import type { ApiObject } from "../../api/object.js";
import type { UserInfo } from "../../request/context.js";
import type { FeedChange, ObjectFeed } from "../feed.js";
import { roleRefOf, rulesOf, subjectsOf, type PolicyRule, type RoleRef, type Subject } from "./policy.js";

/** The four RBAC resources, each as a live feed. */
export interface RbacFeeds {
  readonly roles: ObjectFeed;
  readonly clusterRoles: ObjectFeed;
  readonly roleBindings: ObjectFeed;
  readonly clusterRoleBindings: ObjectFeed;
}

/** A binding as the index keeps it: where it grants, which role, to whom. */
export interface BindingEntry {
  readonly kind: "RoleBinding" | "ClusterRoleBinding";
  /** "" for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly name: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
  /** Index keys of the subjects: `u:<user name>` (service accounts become their user name) or `g:<group>`. */
  readonly keys: readonly string[];
}

function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case "User":
      return `u:${subject.name}`;
    case "Group":
      return `g:${subject.name}`;
    case "ServiceAccount": {
      const namespace = subject.namespace ?? bindingNamespace;
      return namespace === "" ? undefined : `u:${serviceAccountUserName(namespace, subject.name)}`;
    }
  }
}

/** The index keys a user is found under: its name and each of its groups. */
export function userKeys(user: UserInfo): string[] {
  const keys = [`u:${user.name}`];
  for (const group of user.groups) keys.push(`g:${group}`);
  return keys;
}

function nameKey(object: ApiObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
}

/** A rule, where it came from, for reasons and rules reviews. */
export interface RuleVisit {
  readonly binding: BindingEntry;
  readonly rule: PolicyRule;
}

/**
 * Roles by name and bindings by subject, kept current from the RBAC feeds. Deciding touches only
 * the bindings whose subjects are the user or one of its groups (cluster-wide, and in the
 * request's namespace), never every binding; roles are resolved by name at decision time, so a
 * role edited after its binding applies at once.
 */
export class RbacIndex {
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly bindings = new Map<string, BindingEntry>();
  /** subject key → ClusterRoleBindings naming it. */
  private readonly clusterBySubject = new Map<string, Set<BindingEntry>>();
  /** `<namespace>\0<subject key>` → RoleBindings in that namespace naming it. */
  private readonly namespacedBySubject = new Map<string, Set<BindingEntry>>();
  private readonly unsubscribe: (() => void)[] = [];
  readonly group: string;

  /** `group` is the RBAC API group, for messages (`clusterrole.<group> "x" not found`). */
  constructor(feeds: RbacFeeds, group: string) {
    this.group = group;
    this.unsubscribe.push(feeds.roles.subscribe((change) => this.onRole(change, this.roles, feeds.roles)));
    this.unsubscribe.push(feeds.clusterRoles.subscribe((change) => this.onRole(change, this.clusterRoles, feeds.clusterRoles)));
    this.unsubscribe.push(feeds.roleBindings.subscribe((change) => this.onBinding(change, "RoleBinding", feeds.roleBindings)));
    this.unsubscribe.push(feeds.clusterRoleBindings.subscribe((change) => this.onBinding(change, "ClusterRoleBinding", feeds.clusterRoleBindings)));
    this.rebuildRoles(this.roles, feeds.roles);
    this.rebuildRoles(this.clusterRoles, feeds.clusterRoles);
    this.rebuildBindings("RoleBinding", feeds.roleBindings);
    this.rebuildBindings("ClusterRoleBinding", feeds.clusterRoleBindings);
  }

  close(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  private onRole(change: FeedChange, target: Map<string, PolicyRule[]>, feed: ObjectFeed): void {
    if (change.kind === "reset") {
      this.rebuildRoles(target, feed);
      return;
    }
    if (change.kind === "delete") target.delete(nameKey(change.previous));
    else target.set(nameKey(change.object), rulesOf(change.object));
  }

  private rebuildRoles(target: Map<string, PolicyRule[]>, feed: ObjectFeed): void {
    target.clear();
    for (const object of feed.objects()) target.set(nameKey(object), rulesOf(object));
  }

  private onBinding(change: FeedChange, kind: BindingEntry["kind"], feed: ObjectFeed): void {
    if (change.kind === "reset") {
      this.rebuildBindings(kind, feed);
      return;
    }
    const previous =
      change.previous === undefined
        ? undefined
        : this.bindings.get(`${kind}:${kind === "RoleBinding" ? nameKey(change.previous) : `/${change.previous.metadata.name ?? ""}`}`);
    if (previous !== undefined) this.removeBinding(previous);
    if (change.kind === "set") this.addBinding(kind, change.object);
  }

  private rebuildBindings(kind: BindingEntry["kind"], feed: ObjectFeed): void {
    for (const entry of [...this.bindings.values()]) if (entry.kind === kind) this.removeBinding(entry);
    for (const object of feed.objects()) this.addBinding(kind, object);
  }

  private addBinding(kind: BindingEntry["kind"], object: ApiObject): void {
    const roleRef = roleRefOf(object);
    if (roleRef === undefined) return;
    const namespace = kind === "RoleBinding" ? (object.metadata.namespace ?? "") : "";
    const subjects = subjectsOf(object);
    const keys = [...new Set(subjects.map((subject) => subjectKey(subject, namespace)).filter((key): key is string => key !== undefined))];
    const entry: BindingEntry = { kind, namespace, name: object.metadata.name ?? "", roleRef, subjects, keys };
    const existing = this.bindings.get(`${kind}:${namespace}/${entry.name}`);
    if (existing !== undefined) this.removeBinding(existing);
    this.bindings.set(`${kind}:${namespace}/${entry.name}`, entry);
    for (const key of keys)
      addTo(kind === "RoleBinding" ? this.namespacedBySubject : this.clusterBySubject, kind === "RoleBinding" ? `${namespace}\0${key}` : key, entry);
  }

  private removeBinding(entry: BindingEntry): void {
    this.bindings.delete(`${entry.kind}:${entry.namespace}/${entry.name}`);
    for (const key of entry.keys)
      removeFrom(
        entry.kind === "RoleBinding" ? this.namespacedBySubject : this.clusterBySubject,
        entry.kind === "RoleBinding" ? `${entry.namespace}\0${key}` : key,
        entry,
      );
  }

  /** The rules a role reference names, as seen from `namespace`; undefined when the role does not exist. */
  roleRules(roleRef: Pick<RoleRef, "kind" | "name">, namespace: string): readonly PolicyRule[] | undefined {
    return roleRef.kind === "ClusterRole" ? this.clusterRoles.get(`/${roleRef.name}`) : this.roles.get(`${namespace}/${roleRef.name}`);
  }

  /**
   * Visits every rule granted to `user` cluster-wide, then (when `namespace` is not "") in that
   * namespace, until `visit` returns true; returns whether it did. Bindings whose role is missing
   * are reported to `onMissingRole` (kube's resolution errors).
   */
  visitRules(
    user: UserInfo,
    namespace: string,
    visit: (rule: PolicyRule, binding: BindingEntry) => boolean,
    onMissingRole?: (message: string) => void,
  ): boolean {
    const keys = userKeys(user);
    const seen = new Set<BindingEntry>();
    const visitBinding = (binding: BindingEntry): boolean => {
      if (seen.has(binding)) return false;
      seen.add(binding);
      const rules = this.roleRules(binding.roleRef, binding.namespace);
      if (rules === undefined) {
        onMissingRole?.(`${binding.roleRef.kind.toLowerCase()}.${this.group} "${binding.roleRef.name}" not found`);
        return false;
      }
      for (const rule of rules) if (visit(rule, binding)) return true;
      return false;
    };
    for (const key of keys) {
      const bindings = this.clusterBySubject.get(key);
      if (bindings !== undefined) for (const binding of bindings) if (visitBinding(binding)) return true;
    }
    if (namespace === "") return false;
    for (const key of keys) {
      const bindings = this.namespacedBySubject.get(`${namespace}\0${key}`);
      if (bindings !== undefined) for (const binding of bindings) if (visitBinding(binding)) return true;
    }
    return false;
  }

  /** Every rule `user` holds in `namespace` (cluster-wide ones included), and resolution errors. */
  rulesFor(user: UserInfo, namespace: string): { readonly rules: PolicyRule[]; readonly errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRules(
      user,
      namespace,
      (rule) => {
        rules.push(rule);
        return false;
      },
      (message) => errors.push(message),
    );
    return { rules, errors };
  }

  /** Number of bindings indexed (for tests and metrics). */
  get bindingCount(): number {
    return this.bindings.size;
  }
}

function addTo(map: Map<string, Set<BindingEntry>>, key: string, entry: BindingEntry): void {
  let set = map.get(key);
  if (set === undefined) {
    set = new Set();
    map.set(key, set);
  }
  set.add(entry);
}

function removeFrom(map: Map<string, Set<BindingEntry>>, key: string, entry: BindingEntry): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(entry);
  if (set.size === 0) map.delete(key);
}
