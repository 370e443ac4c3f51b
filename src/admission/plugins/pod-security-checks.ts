import { containersOf, listOf, recordOf, stringOf, type Record_ } from "./pod-spec.js";

/** The Pod Security Standards levels, least to most restrictive. */
export type Level = "privileged" | "baseline" | "restricted";
export const LEVELS: readonly Level[] = ["privileged", "baseline", "restricted"];

const BASELINE_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const RESTRICTED_VOLUMES = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"]);

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}
function containersPhrase(names: readonly string[]): string {
  return `${names.length === 1 ? "container" : "containers"} ${quoted(names)}`;
}

/**
 * The checks of one level against a pod spec, each a kube-worded `<check> (<detail>)` string, in
 * kube's order. `restricted` includes `baseline`.
 */
export function violations(spec: Record_, level: Level): string[] {
  if (level === "privileged") return [];
  const out: string[] = [];
  const podContext = recordOf(spec["securityContext"]);
  const containers = containersOf(spec, { ephemeral: true });
  const nameOf = (container: Record_): string => stringOf(container["name"]);
  const contextOf = (container: Record_): Record_ => recordOf(container["securityContext"]);
  const where = (predicate: (container: Record_) => boolean): string[] => containers.filter(predicate).map(nameOf);

  const hosts = ["hostNetwork", "hostPID", "hostIPC"].filter((field) => spec[field] === true);
  if (hosts.length > 0) out.push(`host namespaces (${hosts.map((field) => `${field}=true`).join(", ")})`);
  const privileged = where((container) => contextOf(container)["privileged"] === true);
  if (privileged.length > 0) out.push(`privileged (${containersPhrase(privileged)} must not set securityContext.privileged=true)`);
  const addedOf = (container: Record_): string[] => {
    const add = recordOf(contextOf(container)["capabilities"])["add"];
    return Array.isArray(add) ? add.map(String) : [];
  };
  const extraCapabilities = containers.flatMap((container) =>
    addedOf(container)
      .filter((capability) => !BASELINE_CAPABILITIES.has(capability))
      .map((capability) => ({ container: nameOf(container), capability })),
  );
  if (extraCapabilities.length > 0) {
    const names = [...new Set(extraCapabilities.map((entry) => entry.container))];
    const capabilities = [...new Set(extraCapabilities.map((entry) => entry.capability))];
    out.push(`non-default capabilities (${containersPhrase(names)} must not include ${quoted(capabilities)} in securityContext.capabilities.add)`);
  }
  const hostPaths = listOf(spec["volumes"])
    .filter((volume) => volume["hostPath"] !== undefined)
    .map((volume) => stringOf(volume["name"]));
  if (hostPaths.length > 0) out.push(`hostPath volumes (${hostPaths.length === 1 ? "volume" : "volumes"} ${quoted(hostPaths)})`);
  const hostPorts = containers.flatMap((container) =>
    listOf(container["ports"])
      .filter((port) => typeof port["hostPort"] === "number" && port["hostPort"] !== 0)
      .map((port) => ({ container: nameOf(container), port: Number(port["hostPort"]) })),
  );
  if (hostPorts.length > 0) {
    const names = [...new Set(hostPorts.map((entry) => entry.container))];
    out.push(
      `hostPort (${containersPhrase(names)} ${names.length === 1 ? "uses" : "use"} ${hostPorts.length === 1 ? "hostPort" : "hostPorts"} ${hostPorts.map((entry) => entry.port).join(", ")})`,
    );
  }
  const procMount = where((container) => stringOf(contextOf(container)["procMount"]) !== "" && contextOf(container)["procMount"] !== "Default");
  if (procMount.length > 0) out.push(`procMount (${containersPhrase(procMount)} must not set securityContext.procMount to "Unmasked")`);
  const seccompType = (context: Record_): string => stringOf(recordOf(context["seccompProfile"])["type"]);
  if (level === "baseline") {
    const unconfined = where((container) => seccompType(contextOf(container)) === "Unconfined");
    if (seccompType(podContext) === "Unconfined") out.push(`seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")`);
    if (unconfined.length > 0) out.push(`seccompProfile (${containersPhrase(unconfined)} must not set securityContext.seccompProfile.type to "Unconfined")`);
  }
  const sysctls = listOf(podContext["sysctls"])
    .map((sysctl) => stringOf(sysctl["name"]))
    .filter((name) => !SAFE_SYSCTLS.has(name));
  if (sysctls.length > 0) out.push(`forbidden sysctls (${sysctls.join(", ")})`);
  if (level === "baseline") return out;

  const restrictedVolumes = listOf(spec["volumes"])
    .map((volume) => ({ name: stringOf(volume["name"]), type: Object.keys(volume).find((key) => key !== "name") ?? "" }))
    .filter((volume) => volume.type !== "" && !RESTRICTED_VOLUMES.has(volume.type));
  if (restrictedVolumes.length > 0) {
    const names = restrictedVolumes.map((volume) => volume.name);
    const types = [...new Set(restrictedVolumes.map((volume) => volume.type))];
    out.push(
      `restricted volume types (${names.length === 1 ? "volume" : "volumes"} ${quoted(names)} ${names.length === 1 ? "uses" : "use"} restricted volume ${types.length === 1 ? "type" : "types"} ${quoted(types)})`,
    );
  }
  const escalation = where((container) => contextOf(container)["allowPrivilegeEscalation"] !== false);
  if (escalation.length > 0)
    out.push(`allowPrivilegeEscalation != false (${containersPhrase(escalation)} must set securityContext.allowPrivilegeEscalation=false)`);
  const capabilities = where((container) => {
    const declared = recordOf(contextOf(container)["capabilities"]);
    const drop = Array.isArray(declared["drop"]) ? declared["drop"].map(String) : [];
    const add = Array.isArray(declared["add"]) ? declared["add"].map(String) : [];
    return !drop.includes("ALL") || add.some((capability) => capability !== "NET_BIND_SERVICE");
  });
  if (capabilities.length > 0) out.push(`unrestricted capabilities (${containersPhrase(capabilities)} must set securityContext.capabilities.drop=["ALL"])`);
  const podNonRoot = podContext["runAsNonRoot"] === true;
  const rootPossible = where((container) => contextOf(container)["runAsNonRoot"] === false || (!podNonRoot && contextOf(container)["runAsNonRoot"] !== true));
  if (rootPossible.length > 0) out.push(`runAsNonRoot != true (pod or ${containersPhrase(rootPossible)} must set securityContext.runAsNonRoot=true)`);
  const rootUser = where((container) => contextOf(container)["runAsUser"] === 0);
  if (podContext["runAsUser"] === 0) out.push("runAsUser=0 (pod must not set runAsUser=0)");
  if (rootUser.length > 0) out.push(`runAsUser=0 (${containersPhrase(rootUser)} must not set runAsUser=0)`);
  const allowedSeccomp = (type: string): boolean => type === "RuntimeDefault" || type === "Localhost";
  const podSeccomp = allowedSeccomp(seccompType(podContext));
  const noSeccomp = where((container) => {
    const type = seccompType(contextOf(container));
    return type === "" ? !podSeccomp : !allowedSeccomp(type);
  });
  if (noSeccomp.length > 0)
    out.push(`seccompProfile (pod or ${containersPhrase(noSeccomp)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`);
  return out;
}
