// Several orch-apiserver processes on one etcd cluster, sharing one PKI (the first server's CA,
// serving and admin certificates, service-account keys), so one set of credentials reaches every
// server; and a small keep-alive client for load.
import { cpSync, readFileSync } from "node:fs";
import https from "node:https";
import { createServer, connect, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { type CliServer, startCli } from "./cli.js";
import { type Credentials, credentialsFromKubeconfig } from "./http.js";
import { makeTempDir, removeDir } from "./server.js";

export interface OrchCluster {
  readonly servers: CliServer[];
  readonly dataDirs: readonly string[];
  /** Admin credentials for server `index`. */
  admin(index: number): Credentials;
  /** The first server's admin kubeconfig text (server URL to be replaced by the caller). */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/** Starts `count` servers on `--storage-backend etcd3` with the given etcd endpoints and extra flags. */
export async function startOrchCluster(count: number, endpoints: readonly string[], extraArgs: readonly string[] = []): Promise<OrchCluster> {
  const dataDirs = Array.from({ length: count }, (_, index) => makeTempDir(`orch-cluster-${index}-`));
  const args = (dataDir: string): string[] => [
    "--data-dir",
    dataDir,
    "--secure-port",
    "0",
    "--storage-backend",
    "etcd3",
    "--etcd-servers",
    endpoints.join(","),
    "--etcd-compaction-interval",
    "0",
    ...extraArgs,
  ];
  const servers: CliServer[] = [];
  try {
    const first = dataDirs[0] as string;
    servers.push(await startCli(args(first), 60_000));
    for (const dataDir of dataDirs.slice(1)) cpSync(join(first, "pki"), join(dataDir, "pki"), { recursive: true });
    servers.push(...(await Promise.all(dataDirs.slice(1).map((dataDir) => startCli(args(dataDir), 60_000)))));
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop("SIGKILL")));
    for (const dir of dataDirs) removeDir(dir);
    throw error;
  }
  const kubeconfig = readFileSync(join(dataDirs[0] as string, "admin.kubeconfig"), "utf8");
  const base = credentialsFromKubeconfig(kubeconfig);
  return {
    servers,
    dataDirs,
    kubeconfig,
    admin: (index) => ({ ...base, url: servers[index]?.url ?? "" }),
    async stop() {
      await Promise.all(servers.map((server) => server.stop("SIGKILL")));
      for (const dir of dataDirs) removeDir(dir);
    },
  };
}

/** A JSON client with keep-alive connections (up to `sockets`) to one server. */
export interface KeepAliveClient {
  call(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<{ status: number; json: Record<string, unknown> }>;
  close(): void;
}

export function keepAliveClient(credentials: Credentials, sockets: number): KeepAliveClient {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: credentials.ca, cert: credentials.cert, key: credentials.key });
  return {
    call(method, path, body, timeoutMs = 15_000) {
      const text = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const request = https.request(
          new URL(path, credentials.url),
          { method, agent, headers: { accept: "application/json", ...(text === undefined ? {} : { "content-type": "application/json" }) } },
          (response) => {
            let data = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => (data += chunk));
            response.on("end", () => {
              let json: Record<string, unknown> = {};
              try {
                json = JSON.parse(data) as Record<string, unknown>;
              } catch {
                json = { text: data };
              }
              resolve({ status: response.statusCode ?? 0, json });
            });
            response.on("error", reject);
          },
        );
        request.setTimeout(timeoutMs, () => request.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
        request.on("error", reject);
        request.end(text);
      });
    },
    close: () => agent.destroy(),
  };
}

/** A TCP forwarder on a loopback port whose target can be switched (a load balancer's failover). */
export interface SwitchProxy {
  readonly port: number;
  target(port: number): void;
  close(): Promise<void>;
}

export async function switchProxy(initialPort: number): Promise<SwitchProxy> {
  let targetPort = initialPort;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy: no port");
  return {
    port: address.port,
    target: (port) => {
      targetPort = port;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The port of a server URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}
