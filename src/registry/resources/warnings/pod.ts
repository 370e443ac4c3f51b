import { isPlainObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import { dnsLabelProblems, goList, has, listOf, numberOf, quoted, recordOf, stringOf, under } from "./fields.js";
import { fractionalBytes } from "./fractional-bytes.js";
import { deprecatedNodeLabels, nodeSelectorTermWarnings, requiredTermsWarnings } from "./node-labels.js";
import { claimSpecWarnings } from "./storage.js";

/**
 * kube 1.30's warnings for a pod's spec and metadata (its `warningsForPodSpecAndMeta`), for pods
 * and for every pod template: deprecated node labels, annotations and volume types, fractional
 * byte quantities, duplicate or empty names, port clashes, a negative grace period, selectors
 * that match nothing. Each message starts with the field's path under `prefix` ("" for a pod,
 * `spec.template` for a Deployment, …), as kube prints them.
 */
export interface PodWarnings {
  /** A pod's create (kube warns on no pod update). */
  pod(pod: unknown): string[];
  /** A pod template (`{ metadata, spec }`) at `prefix`. */
  template(template: unknown, prefix: string): string[];
}

interface DeprecatedAnnotation {
  readonly key: string;
  readonly message: string;
}

/** Volume types kube calls deprecated or gone, in the order it checks them. */
const DEPRECATED_VOLUMES: readonly (readonly [string, string])[] = [
  ["photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"],
  ["gitRepo", "deprecated in v1.11"],
  ["scaleIO", "deprecated in v1.16, non-functional in v1.22+"],
  ["flocker", "deprecated in v1.22, non-functional in v1.25+"],
  ["storageos", "deprecated in v1.22, non-functional in v1.25+"],
  ["quobyte", "deprecated in v1.22, non-functional in v1.25+"],
  ["glusterfs", "deprecated in v1.25, non-functional in v1.26+"],
];
const LATE_DEPRECATED_VOLUMES: readonly (readonly [string, string])[] = [
  ["cephfs", "deprecated in v1.28, non-functional in v1.31+"],
  ["rbd", "deprecated in v1.28, non-functional in v1.31+"],
];

const BYTE_RESOURCES = ["memory", "ephemeral-storage"] as const;

export function podWarnings(profile: Profile): PodWarnings {
  const domain = profile.keyDomain;
  const labels = deprecatedNodeLabels(profile);
  const annotations: readonly DeprecatedAnnotation[] = [
    { key: `scheduler.alpha.${domain}/critical-pod`, message: 'non-functional in v1.16+; use the "priorityClassName" field instead' },
    { key: `security.alpha.${domain}/sysctls`, message: 'non-functional in v1.11+; use the "sysctls" field instead' },
    { key: `security.alpha.${domain}/unsafe-sysctls`, message: 'non-functional in v1.11+; use the "sysctls" field instead' },
  ];
  const podSeccomp = `seccomp.security.alpha.${domain}/pod`;
  const containerSeccomp = `container.seccomp.security.alpha.${domain}/`;
  const containerAppArmor = `container.apparmor.security.beta.${domain}/`;

  function specAndMeta(meta: unknown, spec: unknown, prefix: string, isTemplate: boolean): string[] {
    const warnings: string[] = [];
    const specPath = under(prefix, "spec");
    const annotationsPath = under(prefix, "metadata.annotations");
    const metaAnnotations = recordOf(meta, "annotations") ?? {};

    // deprecated node labels in the node selector, node affinity and topology spread keys
    for (const key of Object.keys(recordOf(spec, "nodeSelector") ?? {})) {
      const message = labels.get(key);
      if (message !== undefined) warnings.push(`${specPath}.nodeSelector[${key}]: ${message}`);
    }
    const affinity = recordOf(spec, "affinity");
    const nodeAffinity = recordOf(affinity, "nodeAffinity");
    if (nodeAffinity !== undefined) {
      const affinityPath = `${specPath}.affinity.nodeAffinity`;
      const required = recordOf(nodeAffinity, "requiredDuringSchedulingIgnoredDuringExecution");
      if (required !== undefined) warnings.push(...requiredTermsWarnings(labels, required, `${affinityPath}.requiredDuringSchedulingIgnoredDuringExecution`));
      listOf(nodeAffinity, "preferredDuringSchedulingIgnoredDuringExecution").forEach((term, index) => {
        warnings.push(
          ...nodeSelectorTermWarnings(
            labels,
            recordOf(term, "preference"),
            `${affinityPath}.preferredDuringSchedulingIgnoredDuringExecution[${index}].preference`,
          ),
        );
      });
    }
    listOf(spec, "topologySpreadConstraints").forEach((constraint, index) => {
      const path = `${specPath}.topologySpreadConstraints[${index}]`;
      const key = stringOf(constraint, "topologyKey") ?? "";
      const message = labels.get(key);
      if (message !== undefined) warnings.push(`${path}.topologyKey: ${key} is ${message}`);
      if (!has(constraint, "labelSelector")) warnings.push(`${path}.labelSelector: a null labelSelector results in matching no pod`);
    });

    // deprecated annotations
    for (const annotation of annotations) {
      if (Object.hasOwn(metaAnnotations, annotation.key)) warnings.push(`${annotationsPath}[${annotation.key}]: ${annotation.message}`);
    }

    // deprecated and removed volume types
    listOf(spec, "volumes").forEach((volume, index) => {
      const path = (): string => `${specPath}.volumes[${index}]`;
      for (const [type, message] of DEPRECATED_VOLUMES) if (has(volume, type)) warnings.push(`${path()}.${volumeFieldName(type)}: ${message}`);
      const claimTemplate = recordOf(recordOf(volume, "ephemeral"), "volumeClaimTemplate");
      if (claimTemplate !== undefined) warnings.push(...claimSpecWarnings(recordOf(claimTemplate, "spec"), `${path()}.ephemeral.volumeClaimTemplate.spec`));
      for (const [type, message] of LATE_DEPRECATED_VOLUMES) if (has(volume, type)) warnings.push(`${path()}.${type}: ${message}`);
    });

    // duplicate host alias addresses
    const aliases = listOf(spec, "hostAliases");
    if (aliases.length > 1) {
      const addresses = new Set<string>();
      aliases.forEach((alias, index) => {
        const ip = stringOf(alias, "ip") ?? "";
        if (addresses.has(ip)) warnings.push(`${specPath}.hostAliases[${index}].ip: duplicate ip ${quoted(ip)}`);
        else addresses.add(ip);
      });
    }

    // duplicate and empty image pull secrets
    const pullSecrets = listOf(spec, "imagePullSecrets");
    if (pullSecrets.length > 1) {
      const names = new Set<string>();
      pullSecrets.forEach((secret, index) => {
        const name = stringOf(secret, "name") ?? "";
        if (names.has(name)) warnings.push(`${specPath}.imagePullSecrets[${index}].name: duplicate name ${quoted(name)}`);
        else names.add(name);
      });
    }
    pullSecrets.forEach((secret, index) => {
      const name = stringOf(secret, "name") ?? "";
      if (name === "") warnings.push(`${specPath}.imagePullSecrets[${index}].name: invalid empty name ""`);
    });

    // fractional byte quantities in the pod's overhead
    const overhead = recordOf(spec, "overhead");
    for (const resource of BYTE_RESOURCES) {
      const fraction = fractionalBytes(overhead?.[resource]);
      if (fraction !== undefined) warnings.push(fractionalMessage(`${specPath}.overhead[${resource}]`, fraction));
    }

    // the pod's seccomp annotation without the field
    const podSecurity = recordOf(spec, "securityContext");
    if (!has(podSecurity, "seccompProfile") && Object.hasOwn(metaAnnotations, podSeccomp))
      warnings.push(`${annotationsPath}[${podSeccomp}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
    const podAppArmor = has(podSecurity, "appArmorProfile");

    const containers = containersOf(spec, specPath);
    for (const { container, path } of containers) {
      const name = stringOf(container, "name") ?? "";
      const security = recordOf(container, "securityContext");
      if (!has(security, "seccompProfile") && Object.hasOwn(metaAnnotations, `${containerSeccomp}${name}`))
        warnings.push(`${annotationsPath}[${containerSeccomp}${name}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
      // Pods' AppArmor annotations are turned into fields on create; only templates keep them.
      if (isTemplate && !podAppArmor && !has(security, "appArmorProfile") && Object.hasOwn(metaAnnotations, `${containerAppArmor}${name}`))
        warnings.push(`${annotationsPath}[${containerAppArmor}${name}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
      const resources = recordOf(container, "resources");
      for (const resource of BYTE_RESOURCES) {
        for (const kind of ["limits", "requests"] as const) {
          const fraction = fractionalBytes(recordOf(resources, kind)?.[resource]);
          if (fraction !== undefined) warnings.push(fractionalMessage(`${path()}.resources.${kind}[${resource}]`, fraction));
        }
      }
      warnings.push(...envWarnings(container, path));
    }
    warnings.push(...portWarnings(containers));

    const grace = numberOf(spec, "terminationGracePeriodSeconds");
    if (grace !== undefined && grace < 0)
      warnings.push(`${specPath}.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`);

    for (const kind of ["podAffinity", "podAntiAffinity"] as const) {
      const terms = recordOf(affinity, kind);
      if (terms === undefined) continue;
      const path = `${specPath}.affinity.${kind}`;
      listOf(terms, "requiredDuringSchedulingIgnoredDuringExecution").forEach((term, index) => {
        if (!has(term, "labelSelector"))
          warnings.push(`${path}.requiredDuringSchedulingIgnoredDuringExecution[${index}].labelSelector: a null labelSelector results in matching no pod`);
      });
      listOf(terms, "preferredDuringSchedulingIgnoredDuringExecution").forEach((term, index) => {
        if (!has(recordOf(term, "podAffinityTerm"), "labelSelector"))
          warnings.push(
            `${path}.preferredDuringSchedulingIgnoredDuringExecution[${index}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod`,
          );
      });
    }
    return warnings;
  }

  return {
    pod(pod) {
      const name = stringOf(recordOf(pod, "metadata"), "name") ?? "";
      const problems = dnsLabelProblems(name);
      const warnings =
        problems.length === 0
          ? []
          : [`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: ${goList(problems)}`];
      return [...warnings, ...specAndMeta(recordOf(pod, "metadata"), recordOf(pod, "spec"), "", false)];
    },
    template(template, prefix) {
      if (!isPlainObject(template)) return [];
      return specAndMeta(recordOf(template, "metadata"), recordOf(template, "spec"), prefix, true);
    },
  };
}

/** kube's Go field name of a volume type where it differs from the JSON one (`storageos` is `storageOS` in its paths). */
function volumeFieldName(type: string): string {
  return type === "storageos" ? "storageOS" : type;
}

function fractionalMessage(path: string, canonical: string): string {
  return `${path}: fractional byte value ${quoted(canonical)} is invalid, must be an integer`;
}

interface VisitedContainer {
  readonly container: unknown;
  /** Its path, made when a warning needs it (most pods warn about nothing). */
  path(): string;
}

const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

/** Init containers, containers, then ephemeral containers (kube's visiting order), each with its path. */
function containersOf(spec: unknown, specPath: string): VisitedContainer[] {
  const visited: VisitedContainer[] = [];
  for (const list of CONTAINER_LISTS) {
    const containers = listOf(spec, list);
    for (let index = 0; index < containers.length; index++) visited.push({ container: containers[index], path: () => `${specPath}.${list}[${index}]` });
  }
  return visited;
}

/** A later env entry of the same name that replaces the earlier one instead of building on it. */
function envWarnings(container: unknown, path: () => string): string[] {
  const env = listOf(container, "env");
  if (env.length < 2) return [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  env.forEach((entry, index) => {
    const name = stringOf(entry, "name") ?? "";
    if (!seen.has(name)) {
      seen.add(name);
      return;
    }
    const reference = `$(${name})`;
    const value = stringOf(entry, "value") ?? "";
    if (has(entry, "valueFrom") || value === reference || !value.includes(reference))
      warnings.push(`${path()}.env[${index}]: hides previous definition of ${quoted(name)}, which may be dropped when using apply`);
  });
  return warnings;
}

interface PortBlock {
  readonly path: () => string;
  readonly hostIP: string;
  readonly hostPort: number;
}

/** Ports across every container: a host IP without a host port, and the same port and protocol declared twice. */
function portWarnings(containers: readonly VisitedContainer[]): string[] {
  const warnings: string[] = [];
  const ports = new Map<string, PortBlock[]>();
  for (const { container, path: containerPath } of containers) {
    listOf(container, "ports").forEach((port, index) => {
      const path = (): string => `${containerPath()}.ports[${index}]`;
      const hostIP = stringOf(port, "hostIP") ?? "";
      const hostPort = numberOf(port, "hostPort") ?? 0;
      const containerPort = numberOf(port, "containerPort") ?? 0;
      const protocol = stringOf(port, "protocol") ?? "";
      if (hostIP !== "" && hostPort === 0)
        warnings.push(
          `${path()}: hostIP set without hostPort: {Name:${stringOf(port, "name") ?? ""} HostPort:${hostPort} ContainerPort:${containerPort} Protocol:${protocol} HostIP:${hostIP}}`,
        );
      const key = `${containerPort}/${protocol}`;
      const others = ports.get(key) ?? [];
      for (const other of others) {
        if (hostIP === other.hostIP && hostPort === other.hostPort) warnings.push(`${path()}: duplicate port definition with ${other.path()}`);
        else if (hostPort === 0 || other.hostPort === 0) warnings.push(`${path()}: overlapping port definition with ${other.path()}`);
        else if (hostPort === other.hostPort && (hostIP === "") !== (other.hostIP === ""))
          warnings.push(`${path()}: dangerously ambiguous port definition with ${other.path()}`);
      }
      ports.set(key, [...others, { path, hostIP, hostPort }]);
    });
  }
  return warnings;
}
