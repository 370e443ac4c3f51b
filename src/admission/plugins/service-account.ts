import { randomInt } from "node:crypto";
import type { ApiObject } from "../../api/object.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { resourceReader } from "./reads.js";
import { containersOf, isPod, listOf, recordOf, specOf, stringOf } from "./pod-spec.js";
import { mirrorPodAnnotation } from "../../api/schema/rules/pods.js";

const SERVICE_ACCOUNTS = { group: "", version: "v1", plural: "serviceaccounts" };
const DEFAULT_ACCOUNT = "default";
/** The token lifetime kube requests for projected tokens (one hour plus seven seconds, telling them apart). */
export const PROJECTED_TOKEN_SECONDS = 3607;
/** kube's suffix alphabet (no vowels, no look-alikes). */
const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** 27^5: every five-character suffix, drawn as one number (one `randomInt` call, not five; the same uniform choice). */
const SUFFIXES = SUFFIX_ALPHABET.length ** 5;

function randomSuffix(): string {
  let draw = randomInt(SUFFIXES);
  let suffix = "";
  for (let index = 0; index < 5; index++) {
    suffix += SUFFIX_ALPHABET[draw % SUFFIX_ALPHABET.length];
    draw = Math.floor(draw / SUFFIX_ALPHABET.length);
  }
  return suffix;
}

/** The projected volume kube's ServiceAccount plugin adds: a bound token, the root CA config map, the namespace. */
export function tokenVolume(name: string, rootCAConfigMap: string): Record<string, unknown> {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: PROJECTED_TOKEN_SECONDS, path: "token" } },
        { configMap: { name: rootCAConfigMap, items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
  };
}

/**
 * ServiceAccount: a pod without `serviceAccountName` gets `default`; a pod naming a missing account
 * is refused (403); unless the account or the pod turns automounting off, a projected token volume
 * `<prefix><5 random>` is added and mounted read-only in every container at the profile's path
 * (containers that mount that path already are left alone); the account's `imagePullSecrets` are
 * copied when the pod has none. With the account's `<keyDomain>/enforce-mountable-secrets: "true"`
 * annotation, secret volumes must be among the account's `secrets`.
 *
 * Differs from kube on purpose: a missing `default` account is not refused (kube answers 403 until
 * the `serviceaccount` controller has created it, moments after the namespace; here the pod is
 * admitted without a token volume in that window, or when that controller is switched off).
 */
export function serviceAccount(context: PluginContext): AdmissionPlugin {
  const mountPath = context.names.serviceAccountMountPath;
  const mirrorAnnotation = mirrorPodAnnotation(context.names.keyDomain);
  const enforceMountable = `${context.names.keyDomain}/enforce-mountable-secrets`;
  // kube's plugin reads a lister and asks the store only on a miss: the watch cache answers most
  // lookups without a storage read, and an account created a moment ago is still found.
  const accounts = resourceReader(context, SERVICE_ACCOUNTS);
  /** The account from the watch cache at once (undefined: not cached, then `accounts.get`, which asks the store). */
  const accountNow = (namespace: string, name: string): ApiObject | undefined => accounts.getNow(namespace, name);
  const accountOf = (namespace: string, name: string): Promise<ApiObject | undefined> => accounts.get(namespace, name);

  /** mutate's work once the account is read (undefined: it does not exist). */
  function admitWith(attributes: AdmissionAttributes, spec: Record<string, unknown>, name: string, account: ApiObject | undefined): void {
    if (account === undefined) {
      if (name === DEFAULT_ACCOUNT) return;
      throw denied(attributes, `error looking up service account ${attributes.namespace}/${name}: serviceaccount "${name}" not found`);
    }
    if (account["automountServiceAccountToken"] !== false && spec["automountServiceAccountToken"] !== false) mountToken(spec);
    const pullSecrets = listOf(account["imagePullSecrets"]);
    if (listOf(spec["imagePullSecrets"]).length === 0 && pullSecrets.length > 0)
      spec["imagePullSecrets"] = pullSecrets.map((secret) => ({ name: stringOf(secret["name"]) }));
  }

  /** validate's work once the account is read. */
  function checkMountable(attributes: AdmissionAttributes, spec: Record<string, unknown>, name: string, account: ApiObject | undefined): void {
    if (account === undefined || account.metadata.annotations?.[enforceMountable] !== "true") return;
    const mountable = new Set(listOf(account["secrets"]).map((secret) => stringOf(secret["name"])));
    for (const volume of listOf(spec["volumes"])) {
      const secret = stringOf(recordOf(volume["secret"])["secretName"]);
      if (secret !== "" && !mountable.has(secret)) {
        throw denied(
          attributes,
          `volume ${stringOf(volume["name"])} references secret ${secret}, which is not allowed because service account ${name} does not reference that secret`,
        );
      }
    }
  }

  return {
    name: "ServiceAccount",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE",
    mutate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || !isPod(attributes)) return;
      if (pod.metadata.annotations?.[mirrorAnnotation] !== undefined) return;
      const spec = specOf(pod);
      if (stringOf(spec["serviceAccountName"]) === "") {
        spec["serviceAccountName"] = DEFAULT_ACCOUNT;
        // kube writes the deprecated alias equal to the name (defaulting already did for a named account).
        spec["serviceAccount"] = DEFAULT_ACCOUNT;
      }
      const name = stringOf(spec["serviceAccountName"]);
      // An account in the watch cache is used at once: no promise on the usual pod create.
      const cached = accountNow(attributes.namespace, name);
      if (cached !== undefined) return admitWith(attributes, spec, name, cached);
      return accountOf(attributes.namespace, name).then((account) => admitWith(attributes, spec, name, account));
    },
    validate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || !isPod(attributes)) return;
      const spec = specOf(pod);
      const name = stringOf(spec["serviceAccountName"]);
      // Only secret volumes can break the mountable-secrets rule: most pods need no second read of the account.
      if (name === "" || !listOf(spec["volumes"]).some((volume) => volume["secret"] !== undefined)) return;
      const cached = accountNow(attributes.namespace, name);
      if (cached !== undefined) return checkMountable(attributes, spec, name, cached);
      return accountOf(attributes.namespace, name).then((account) => checkMountable(attributes, spec, name, account));
    },
  };

  function mountToken(spec: Record<string, unknown>): void {
    const containers = containersOf(spec);
    const mountsPath = (container: Record<string, unknown>): boolean => listOf(container["volumeMounts"]).some((mount) => mount["mountPath"] === mountPath);
    if (containers.length > 0 && containers.every(mountsPath)) return;
    const volumes = listOf(spec["volumes"]);
    const existing = volumes.find(
      (volume) => stringOf(volume["name"]).startsWith(context.profile.serviceAccountVolumePrefix) && volume["projected"] !== undefined,
    );
    const volumeName = existing === undefined ? `${context.profile.serviceAccountVolumePrefix}${randomSuffix()}` : stringOf(existing["name"]);
    if (existing === undefined) spec["volumes"] = [...volumes, tokenVolume(volumeName, context.profile.rootCAConfigMap)];
    for (const container of containers) {
      if (mountsPath(container)) continue;
      container["volumeMounts"] = [...listOf(container["volumeMounts"]), { name: volumeName, readOnly: true, mountPath }];
    }
  }
}
