import type { Registry as MetricsRegistry } from "prom-client";
import type { ApiClient, ObjectLister } from "../api/client.js";
import type { AdmissionNames, Profile } from "../api/profile.js";
import type { Authorizer } from "../authz/authorizer.js";
import type { ObjectFeed } from "../authz/feed.js";
import type { AdmissionPlugin } from "./interface.js";

/** Flags that tune built-in plugins. */
export interface AdmissionSettings {
  /** `--default-not-ready-toleration-seconds` (default 300). */
  readonly notReadyTolerationSeconds: number;
  /** `--default-unreachable-toleration-seconds` (default 300). */
  readonly unreachableTolerationSeconds: number;
}

export const DEFAULT_ADMISSION_SETTINGS: AdmissionSettings = { notReadyTolerationSeconds: 300, unreachableTolerationSeconds: 300 };

/** What a plugin is built with. `client` acts with the server's own authority (reads go through the registry). */
export interface PluginContext {
  readonly profile: Profile;
  readonly names: AdmissionNames;
  readonly client: ApiClient;
  readonly authorizer: Authorizer;
  /** The plugin's configuration from the AdmissionConfiguration, as its `parseConfiguration` returned it. */
  readonly configuration: unknown;
  readonly settings: AdmissionSettings;
  /** The served resource of a kind (`apiVersion` as in an ownerReference); undefined when not served. */
  readonly resourceOfKind: (apiVersion: string, kind: string) => { readonly group: string; readonly plural: string; readonly namespaced: boolean } | undefined;
  /** Milliseconds since the epoch (injected in tests). */
  readonly now: () => number;
  /** The server's metric registry (ValidatingAdmissionPolicy counts its checks there); none: nothing is counted. */
  readonly metrics?: MetricsRegistry;
  /** A live view of a served resource from the watch cache (ValidatingAdmissionPolicy reads its policies so). */
  readonly feed?: (group: string, version: string, plural: string) => ObjectFeed;
  /** The watch cache's view of a resource, read as kube's plugins read their listers; none: plugins read through `client`. */
  readonly lister?: (group: string, version: string, plural: string) => ObjectLister;
}

/**
 * A named built-in plugin as data: whether it is on by default, how its configuration is read
 * (throwing AdmissionConfigError naming the field), and how it is built. No `create` means a slot
 * another part of the server fills (the webhook plugins).
 */
export interface PluginDescriptor {
  readonly name: string;
  readonly defaultOn: boolean;
  readonly parseConfiguration?: (raw: unknown, profile: Profile) => unknown;
  readonly create?: (context: PluginContext) => AdmissionPlugin;
}
