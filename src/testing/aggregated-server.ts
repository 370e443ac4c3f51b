import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { TestPki } from "./webhook-server.js";

/** One request an aggregated test server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The common name of the client certificate presented, "" when none. */
  readonly clientCommonName: string;
}

/** A loopback HTTPS server playing an aggregated API server for one group version (`widgets`, namespaced). */
export interface TestAggregatedServer {
  readonly port: number;
  readonly received: ReceivedRequest[];
  /** While false, every request answers 503 (a broken backend). */
  healthy: boolean;
  /** Sends one watch event to every open watch. */
  emit(type: string, object: Record<string, unknown>): void;
  close(): Promise<void>;
}

/**
 * Starts the server: `GET /apis/<group>/<version>` answers its APIResourceList, a list of
 * `widgets` one Widget, and `?watch=true` an open stream of the events `emit` sends.
 */
export async function startAggregatedServer(pki: Pick<TestPki, "cert" | "key">, group: string, version: string): Promise<TestAggregatedServer> {
  const received: ReceivedRequest[] = [];
  const watchers = new Set<import("node:http").ServerResponse>();
  const apiVersion = `${group}/${version}`;
  const widget = (name: string, namespace: string) => ({ apiVersion, kind: "Widget", metadata: { name, namespace, resourceVersion: "1" }, spec: { size: 3 } });
  const state = { healthy: true };
  const server = https.createServer({ cert: pki.cert, key: pki.key, requestCert: true, rejectUnauthorized: false }, (request, response) => {
    const peer = (request.socket as TLSSocket).getPeerCertificate();
    received.push({
      method: request.method ?? "",
      target: request.url ?? "",
      headers: request.headers,
      clientCommonName: peer !== null && typeof peer === "object" && peer.subject !== undefined ? String(peer.subject.CN ?? "") : "",
    });
    const url = new URL(request.url ?? "/", "https://backend");
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (!state.healthy)
      return json(503, { kind: "Status", apiVersion: "v1", status: "Failure", message: "backend down", reason: "ServiceUnavailable", code: 503 });
    if (url.pathname === `/apis/${apiVersion}`) {
      return json(200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: apiVersion,
        resources: [
          { name: "widgets", singularName: "widget", namespaced: true, kind: "Widget", verbs: ["get", "list", "watch"], shortNames: ["wd"] },
          { name: "widgets/status", singularName: "", namespaced: true, kind: "Widget", verbs: ["get"] },
        ],
      });
    }
    const list = new RegExp(`^/apis/${apiVersion.replaceAll(".", "\\.")}/namespaces/([^/]+)/widgets$`).exec(url.pathname);
    if (list !== null && url.searchParams.get("watch") === "true") {
      response.writeHead(200, { "content-type": "application/json" });
      response.flushHeaders();
      watchers.add(response);
      response.on("close", () => watchers.delete(response));
      return;
    }
    if (list !== null) return json(200, { apiVersion, kind: "WidgetList", metadata: { resourceVersion: "1" }, items: [widget("first", list[1] ?? "")] });
    json(404, { kind: "Status", apiVersion: "v1", status: "Failure", message: "not found", reason: "NotFound", code: 404 });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    get healthy() {
      return state.healthy;
    },
    set healthy(value: boolean) {
      state.healthy = value;
    },
    emit(type, object) {
      for (const watcher of watchers) watcher.write(`${JSON.stringify({ type, object })}\n`);
    },
    close() {
      for (const watcher of watchers) watcher.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
