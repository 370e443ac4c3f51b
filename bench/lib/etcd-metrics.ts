/**
 * etcd's own count of the gRPC calls it handled (`grpc_server_handled_total` on its /metrics, by
 * method), so a bench can say how many etcd round trips one API operation costs: a figure that
 * does not depend on how loaded the machine is.
 */

/** Handled calls by method (`Range`, `Txn`, …), summed over result codes. */
export type EtcdCalls = ReadonlyMap<string, number>;

export async function etcdCalls(clientUrl: string): Promise<EtcdCalls> {
  const text = await (await fetch(`${clientUrl}/metrics`)).text();
  const calls = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith("grpc_server_handled_total{")) continue;
    const method = /grpc_method="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (method === undefined || !Number.isFinite(value)) continue;
    calls.set(method, (calls.get(method) ?? 0) + value);
  }
  return calls;
}

/** Calls per operation between two readings, by method (methods with none left out), rounded to 3 places. */
export function callsPerOperation(before: EtcdCalls, after: EtcdCalls, operations: number): Record<string, number> {
  const per: Record<string, number> = {};
  for (const [method, value] of after) {
    const delta = value - (before.get(method) ?? 0);
    if (delta > 0) per[method] = Math.round((delta / Math.max(1, operations)) * 1000) / 1000;
  }
  return per;
}

/** `Range 0.05, Txn 1` */
export function describeCalls(per: Record<string, number>): string {
  const entries = Object.entries(per).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? "none" : entries.map(([method, value]) => `${method} ${value}`).join(", ");
}
