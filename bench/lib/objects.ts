/** Request bodies: ConfigMaps of a fixed serialised size. */

/** A ConfigMap manifest whose JSON is `bytes` long (padding goes into data.payload). */
export function configMapBody(namespace: string, name: string, bytes: number): string {
  const object = (payload: string): string =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace, labels: { app: "orch-bench", tier: "load" } },
      data: { mode: "benchmark", payload },
    });
  const bare = object("").length;
  return object("x".repeat(Math.max(0, bytes - bare)));
}

export function namespaceBody(name: string): string {
  return JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/** A JSON object as a plain record, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
