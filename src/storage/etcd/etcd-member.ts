/**
 * Throw-away etcd members for tests and benchmarks: Debian's `etcd` binary on free loopback
 * ports, data in a temporary folder (in /dev/shm when there is one: etcd fsyncs every commit),
 * killed and removed by `stop()` and, as a last resort, when the process exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface EtcdMember {
  readonly name: string;
  /** `http://127.0.0.1:<port>` */
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** Kills the member (SIGKILL) and waits for it to exit; the data dir stays. */
  kill(): Promise<void>;
  /** Starts the member again on the same ports and data (after kill). */
  restart(): Promise<void>;
  readonly running: boolean;
}

export interface EtcdCluster {
  readonly members: readonly EtcdMember[];
  /** Every member's client URL, for `--etcd-servers`. */
  readonly endpoints: readonly string[];
  /**
   * The member that leads the raft group now, as the running members report it (waits, up to
   * `timeoutMs`, default 10 s, for an election to finish). Plain-HTTP clusters only.
   */
  leader(timeoutMs?: number): Promise<EtcdMember>;
  /** Kills every member and removes their data. Idempotent. */
  stop(): Promise<void>;
}

export interface EtcdClusterOptions {
  /** Number of members (default 1). */
  readonly size?: number;
  /** How long to wait for the cluster to serve (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Extra etcd flags for every member. */
  readonly extraArgs?: readonly string[];
  /** Serve clients over TLS with this certificate, and require client certificates issued by the CA (PEM files). */
  readonly tls?: { readonly caFile: string; readonly certFile: string; readonly keyFile: string };
}

const ETCD_BINARY = process.env.ORCH_TEST_ETCD ?? "/usr/bin/etcd";
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** True when the etcd binary is installed (scripts/install-test-deps.sh installs it). */
export function etcdAvailable(): boolean {
  return existsSync(ETCD_BINARY);
}

/** Starts an etcd cluster of `size` members on loopback and waits until it serves. */
export async function startEtcdCluster(options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const size = options.size ?? 1;
  const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  const root = mkdtempSync(join(base, "orch-etcd-"));
  const ports = await freePorts(size * 2);
  const specs = Array.from({ length: size }, (_, i) => ({
    name: `m${i}`,
    clientUrl: `${options.tls === undefined ? "http" : "https"}://127.0.0.1:${ports[2 * i]}`,
    peerUrl: `http://127.0.0.1:${ports[2 * i + 1]}`,
    dataDir: join(root, `m${i}`),
  }));
  const initialCluster = specs.map((spec) => `${spec.name}=${spec.peerUrl}`).join(",");
  installExitHook();
  const members = specs.map((spec) => {
    let child: ChildProcess | undefined;
    const args = [
      `--name=${spec.name}`,
      `--data-dir=${spec.dataDir}`,
      `--listen-client-urls=${spec.clientUrl}`,
      `--advertise-client-urls=${spec.clientUrl}`,
      `--listen-peer-urls=${spec.peerUrl}`,
      `--initial-advertise-peer-urls=${spec.peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      "--initial-cluster-state=new",
      "--initial-cluster-token=orch-test",
      "--log-level=error",
      "--logger=zap",
      // Fast elections keep fault tests short.
      "--heartbeat-interval=50",
      "--election-timeout=500",
      ...(options.tls === undefined
        ? []
        : [`--cert-file=${options.tls.certFile}`, `--key-file=${options.tls.keyFile}`, `--trusted-ca-file=${options.tls.caFile}`, "--client-cert-auth"]),
      ...(options.extraArgs ?? []),
    ];
    const launch = (): void => {
      const started = spawn(ETCD_BINARY, args, { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      started.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      started.on("exit", (code, signal) => {
        live.delete(started);
        if (code !== 0 && signal === null && process.env.ORCH_TEST_ETCD_LOG === "1") process.stderr.write(`etcd ${spec.name} exited ${code}: ${stderr}\n`);
      });
      live.add(started);
      child = started;
    };
    const member: EtcdMember = {
      ...spec,
      get running() {
        return child !== undefined && child.exitCode === null && child.signalCode === null;
      },
      async kill() {
        const current = child;
        if (current === undefined || current.exitCode !== null || current.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
        current.kill("SIGKILL");
        await exited;
      },
      async restart() {
        if (member.running) return;
        launch();
        await waitHealthy([member], 20_000, options.tls);
      },
    };
    launch();
    return member;
  });
  let stopped = false;
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((member) => member.clientUrl),
    async leader(timeoutMs = 10_000) {
      if (options.tls !== undefined) throw new Error("leader(): plain-HTTP clusters only");
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ids = new Map<string, EtcdMember>();
        let leaderId: string | undefined;
        for (const member of members.filter((candidate) => candidate.running)) {
          const status = await memberStatus(member.clientUrl).catch(() => undefined);
          if (status === undefined) continue;
          ids.set(status.memberId, member);
          if (status.leader !== "0") leaderId = status.leader;
        }
        const found = leaderId === undefined ? undefined : ids.get(leaderId);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no etcd leader among the running members after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(members.map((member) => member.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await waitHealthy(members, options.startTimeoutMs ?? 30_000, options.tls);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** Waits until every member answers /health with health "true" (it has a leader). */
async function waitHealthy(members: readonly EtcdMember[], timeoutMs: number, tls: EtcdClusterOptions["tls"]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const member of members) {
    for (;;) {
      if (!member.running) throw new Error(`etcd member ${member.name} exited while starting`);
      try {
        const body = await healthOf(member.clientUrl, tls);
        if (typeof body === "object" && body !== null && "health" in body && body.health === "true") break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`etcd member ${member.name} not healthy after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** GET /health of a member (over mutual TLS when the cluster uses it), parsed. */
function healthOf(url: string, tls: EtcdClusterOptions["tls"]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const options = tls === undefined ? {} : { ca: readFileSync(tls.caFile), cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
    const get = tls === undefined ? httpGet : httpsGet;
    const request = get(`${url}/health`, { ...options, timeout: 1000 }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        try {
          resolve(JSON.parse(text));
        } catch (error) {
          reject(error);
        }
      });
    });
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", reject);
  });
}

/** A member's id and the leader it knows (etcd's JSON gateway, `POST /v3/maintenance/status`); ids are decimal strings. */
async function memberStatus(url: string): Promise<{ memberId: string; leader: string }> {
  const response = await fetch(`${url}/v3/maintenance/status`, { method: "POST", body: "{}", signal: AbortSignal.timeout(1000) });
  const body: unknown = await response.json();
  if (typeof body !== "object" || body === null || !("header" in body) || typeof body.header !== "object" || body.header === null) {
    throw new Error(`etcd status of ${url}: unexpected answer`);
  }
  const memberId = "member_id" in body.header ? String(body.header.member_id) : "";
  return { memberId, leader: "leader" in body ? String(body.leader) : "0" };
}

/** Distinct free loopback ports (bound together, then released, so they differ from each other). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}
