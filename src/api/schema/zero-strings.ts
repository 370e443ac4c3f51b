/**
 * kube's SetDefaults_* test Go's zero value: a non-pointer string field sent as "" is defaulted
 * like an absent one (`sessionAffinity: ""` reads `None`, `imagePullPolicy: ""` is chosen from the
 * image). Helm charts render such empties (`{{ .Values.service.sessionAffinity | quote }}`).
 * Pointer fields are not listed: kube keeps their "" and validates it.
 *
 * By catalogue id, the paths (from that definition) whose "" `applyDefaults` removes before it
 * fills defaults; inline structs are reached from the nearest definition. A fact of kube's Go types
 * and defaulters (pkg/apis/{core,apps,batch}/v1/defaults.go), kept by hand like `proto/presence.ts`.
 */
export const ZERO_STRING_DEFAULTS: ReadonlyMap<string, readonly (readonly string[])[]> = new Map<string, readonly (readonly string[])[]>([
  ["core.v1.Container", [["imagePullPolicy"], ["terminationMessagePath"], ["terminationMessagePolicy"]]],
  ["core.v1.EphemeralContainer", [["imagePullPolicy"], ["terminationMessagePath"], ["terminationMessagePolicy"]]],
  ["core.v1.ContainerPort", [["protocol"]]],
  ["core.v1.ServicePort", [["protocol"]]],
  ["core.v1.EndpointPort", [["protocol"]]],
  ["core.v1.HTTPGetAction", [["scheme"]]],
  ["core.v1.PodSpec", [["dnsPolicy"], ["restartPolicy"], ["schedulerName"]]],
  ["core.v1.ServiceSpec", [["type"], ["sessionAffinity"], ["externalTrafficPolicy"]]],
  ["core.v1.PersistentVolumeSpec", [["persistentVolumeReclaimPolicy"]]],
  ["apps.v1.DeploymentSpec", [["strategy", "type"]]],
  [
    "apps.v1.StatefulSet",
    [
      ["spec", "podManagementPolicy"],
      ["spec", "updateStrategy", "type"],
    ],
  ],
  ["apps.v1.DaemonSet", [["spec", "updateStrategy", "type"]]],
  ["batch.v1.CronJob", [["spec", "concurrencyPolicy"]]],
]);

/** Removes the listed fields of `value` that hold "", so defaulting treats them as unset. */
export function dropZeroStrings(value: Record<string, unknown>, paths: readonly (readonly string[])[]): void {
  for (const path of paths) {
    let holder: unknown = value;
    // Runs on every write of these kinds (each container of a pod): walked by index, no copy of the path.
    for (let index = 0; index < path.length - 1; index++) {
      holder = typeof holder === "object" && holder !== null ? (holder as Record<string, unknown>)[path[index] as string] : undefined;
    }
    const last = path[path.length - 1];
    if (last !== undefined && typeof holder === "object" && holder !== null && (holder as Record<string, unknown>)[last] === "")
      delete (holder as Record<string, unknown>)[last];
  }
}
