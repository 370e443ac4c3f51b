/**
 * Authentication overhead benchmark (`npm run bench -- --suite auth`, about a minute; with
 * `--quick` a smoke run): GET of one ConfigMap at c=64 over HTTP/1.1 and HTTP/2 with three
 * credentials — the admin client certificate (verified once per connection at the handshake:
 * the baseline), a static token (`--token-auth-file`) and a service-account token from
 * TokenRequest (verified once, then served from the verification cache with the account
 * re-checked in the watch cache). Reports each credential's rate and latency and its ratio to the
 * client certificate. Writes bench/results/<date>-auth.{json,md}.
 *
 * Authorization differs slightly between the identities (the certificate and static-token users
 * are in system:masters; the service account is bound to cluster-admin by a ClusterRoleBinding),
 * so the ratios bound authentication's cost from above.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { measureAuthentication } from "./lib/auth-micro.js";
import { h1Client, type Protocol, type Target } from "./lib/client.js";
import type { PhaseResult } from "./lib/load.js";
import { makeTempDir } from "./lib/processes.js";
import { QuietGate } from "./lib/quiet.js";
import { cell, table } from "./lib/report.js";
import { adminCredentials, startServerChild } from "./lib/server.js";
import { median, round } from "./lib/stats.js";

const STATIC_TOKEN = "bench-static-token";
const CONTROL = "certificate + unread token-sized header";
const CONFIGMAP = "/api/v1/namespaces/default/configmaps/bench-auth-get";
/** The bound: authentication adds under 5 % to a GET. */
const TARGET_OVERHEAD_PERCENT = 5;

const log = (text: string): void => void process.stdout.write(`${text}\n`);

export interface AuthSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
  /** Load-generator threads. */
  readonly workers: number;
  readonly h2: boolean;
}

interface Settings extends AuthSuiteOptions {
  readonly warmupMs: number;
  readonly phaseMs: number;
  readonly protocols: readonly Protocol[];
}

async function expect(reply: Promise<{ status: number; body?: Buffer }>, status: number, what: string): Promise<Buffer> {
  const result = await reply;
  if (result.status !== status) throw new Error(`${what}: HTTP ${result.status}: ${result.body?.toString("utf8").slice(0, 300) ?? ""}`);
  return result.body ?? Buffer.alloc(0);
}

/** Creates the object to GET and a service account with a token and cluster-admin rights. */
async function prepare(target: Target): Promise<{ readonly token: string; readonly uid: string }> {
  const client = h1Client(target, 1);
  try {
    const json = (value: unknown): string => JSON.stringify(value);
    await expect(
      client.request(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        json({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bench-auth-get" }, data: { value: "x".repeat(300) } }),
        true,
      ),
      201,
      "create the ConfigMap",
    );
    const account = await expect(
      client.request(
        "POST",
        "/api/v1/namespaces/default/serviceaccounts",
        json({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "bench" } }),
        true,
      ),
      201,
      "create the service account",
    );
    const uid = (JSON.parse(account.toString("utf8")) as { metadata?: { uid?: string } }).metadata?.uid ?? "";
    await expect(
      client.request(
        "POST",
        "/apis/rbac.authorization.orch.io/v1/clusterrolebindings",
        json({
          apiVersion: "rbac.authorization.orch.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: "bench-admin" },
          roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "cluster-admin" },
          subjects: [{ kind: "ServiceAccount", name: "bench", namespace: "default" }],
        }),
        true,
      ),
      201,
      "bind the service account",
    );
    const body = await expect(
      client.request("POST", "/api/v1/namespaces/default/serviceaccounts/bench/token", json({ spec: { expirationSeconds: 3600 } }), true),
      201,
      "request a token",
    );
    const token = (JSON.parse(body.toString("utf8")) as { status?: { token?: string } }).status?.token;
    if (token === undefined) throw new Error("TokenRequest returned no token");
    return { token, uid };
  } finally {
    client.close();
  }
}

interface Row {
  readonly credential: string;
  readonly protocol: Protocol;
  readonly phase: PhaseResult;
}

export async function runAuthSuite(options: AuthSuiteOptions): Promise<void> {
  const settings: Settings = {
    ...options,
    warmupMs: options.quick ? 500 : 1500,
    phaseMs: options.quick ? 1000 : 5000,
    protocols: options.h2 ? ["h1", "h2"] : ["h1"],
  };
  log("authentication overhead: GET with a client certificate, a static token, a service-account token");
  const root = makeTempDir("orch-bench-auth-");
  const tokens = join(root, "tokens.csv");
  writeFileSync(tokens, `${STATIC_TOKEN},bench-user,uid-bench,system:masters\n`);
  const dataDir = join(root, "data");
  const server = await startServerChild({ dataDir, extraArgs: ["--token-auth-file", tokens] });
  const admin = adminCredentials(dataDir);
  const base = { host: server.host, port: server.port };
  const { token: serviceAccountToken, uid } = await prepare({ ...base, credentials: admin });
  const credentials: [string, Target][] = [
    ["client certificate", { ...base, credentials: admin }],
    ["static token", { ...base, credentials: { ca: admin.ca }, bearerToken: STATIC_TOKEN }],
    ["service-account token", { ...base, credentials: { ca: admin.ca }, bearerToken: serviceAccountToken }],
    // Transport control: the certificate authenticates first, so this token-sized header is never read.
    [CONTROL, { ...base, credentials: admin, bearerToken: "x".repeat(serviceAccountToken.length) }],
  ];
  const gate = new QuietGate(settings.quietWaitMs);
  const rows: Row[] = [];
  for (const protocol of settings.protocols) {
    for (const [credential, target] of credentials) {
      const phase = await gate.phase({
        name: `GET (${credential})`,
        protocol,
        target,
        concurrency: 64,
        scenario: { kind: "get", path: CONFIGMAP, expectStatus: 200 },
        warmupMs: settings.warmupMs,
        durationMs: settings.phaseMs,
        workers: settings.workers,
        serverPid: server.pid,
      });
      if (phase.failures > 0) throw new Error(`GET with a ${credential} failed ${phase.failures} times: ${phase.firstError ?? "?"}`);
      log(
        `  ${protocol} ${credential.padEnd(40)} ${String(round(phase.perSecond)).padStart(7)} req/s  p50 ${round(phase.latency.p50Ms)} ms  p99 ${round(phase.latency.p99Ms)} ms  other CPU ${phase.otherCpuPercent} %`,
      );
      rows.push({ credential, protocol, phase });
    }
  }
  await server.stop();
  log("per-request authentication cost, in process:");
  const micro = await measureAuthentication({
    dataDir,
    tokenFile: tokens,
    staticToken: STATIC_TOKEN,
    serviceAccountToken,
    serviceAccountUid: uid,
    admin,
    iterations: settings.quick ? 20_000 : 200_000,
  });
  // What one GET costs the server: its CPU time per request, the median over the phases (one
  // phase alone is at the mercy of whatever else runs on the machine).
  const perGet = rows.flatMap((row) => (row.phase.serverCpuPercent === undefined ? [] : [(row.phase.serverCpuPercent / 100) * (1e6 / row.phase.perSecond)]));
  const serverMicrosecondsPerGet = perGet.length === 0 ? Number.NaN : median(perGet);
  const certificateMicroseconds = micro.find((entry) => entry.credential === "client certificate")?.microsecondsPerRequest ?? 0;
  const costs = micro.map((entry) => ({
    credential: entry.credential,
    microsecondsPerRequest: round(entry.microsecondsPerRequest),
    percentOfGet: round((entry.microsecondsPerRequest / serverMicrosecondsPerGet) * 100),
    percentOverCertificate: round(((entry.microsecondsPerRequest - certificateMicroseconds) / serverMicrosecondsPerGet) * 100),
  }));
  for (const cost of costs)
    log(
      `  ${cost.credential.padEnd(22)} ${cost.microsecondsPerRequest} µs = ${cost.percentOfGet} % of a GET's server CPU (${round(serverMicrosecondsPerGet)} µs)`,
    );
  const ratios = rows.map((row) => {
    const baseline = rows.find((candidate) => candidate.protocol === row.protocol && candidate.credential === "client certificate")?.phase;
    const latency = baseline === undefined ? Number.NaN : row.phase.latency.p50Ms / baseline.latency.p50Ms;
    const rate = baseline === undefined ? Number.NaN : baseline.perSecond / row.phase.perSecond;
    const cpu = (phase: PhaseResult | undefined): number =>
      phase?.serverCpuPercent === undefined ? Number.NaN : (phase.serverCpuPercent / 100) * (1e6 / phase.perSecond);
    return {
      credential: row.credential,
      protocol: row.protocol,
      perSecond: round(row.phase.perSecond),
      p50Ms: round(row.phase.latency.p50Ms),
      p99Ms: round(row.phase.latency.p99Ms),
      serverCpuMicroseconds: round(cpu(row.phase)),
      cpuRatio: round(cpu(row.phase) / cpu(baseline)),
      p50Ratio: round(latency),
      rateRatio: round(rate),
      overheadPercent: round((Math.max(latency, rate) - 1) * 100),
    };
  });
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(settings.outDir, { recursive: true });
  const file = join(settings.outDir, `${date}-auth${settings.quick ? "-quick" : ""}`);
  const markdown = [
    `# Authentication overhead (${date}${settings.quick ? ", quick" : ""})`,
    "",
    `GET of one ConfigMap, c=64, ${settings.phaseMs / 1000} s per phase after ${settings.warmupMs / 1000} s warm-up; baseline: the client certificate. Overhead = the larger of the p50 ratio and the rate ratio, minus 1 (target < ${TARGET_OVERHEAD_PERCENT} %). The "${CONTROL}" row sends an Authorization header as long as the service-account token that no authenticator reads (the certificate decides first): its difference from the certificate is the transport's cost of the header (HTTP/2 never indexes Authorization in HPACK, so every request carries it whole), not authentication's.`,
    "",
    table(
      ["protocol", "credential", "req/s", "p50 ms", "p99 ms", "server CPU µs / GET", "CPU / cert", "p50 / cert", "cert rate / rate", "overhead %"],
      ratios.map((ratio) => [
        ratio.protocol,
        ratio.credential,
        cell(ratio.perSecond),
        cell(ratio.p50Ms),
        cell(ratio.p99Ms),
        cell(ratio.serverCpuMicroseconds),
        cell(ratio.cpuRatio),
        cell(ratio.p50Ratio),
        cell(ratio.rateRatio),
        cell(ratio.overheadPercent),
      ]),
    ),
    "",
    `Authentication itself, measured in process through the server's authenticator union (service-account verification cached), against the server CPU time of one GET (median over the phases, ${cell(round(serverMicrosecondsPerGet))} µs):`,
    "",
    table(
      ["credential", "µs per request", "% of a GET", `% over the certificate (target < ${TARGET_OVERHEAD_PERCENT})`],
      costs.map((cost) => [cost.credential, cell(cost.microsecondsPerRequest), cell(cost.percentOfGet), cell(cost.percentOverCertificate)]),
    ),
    "",
    `Quiet gate: ${JSON.stringify(gate.summary())}`,
    "",
  ].join("\n");
  writeFileSync(`${file}.md`, markdown);
  writeFileSync(
    `${file}.json`,
    `${JSON.stringify({ date, quick: settings.quick, targetOverheadPercent: TARGET_OVERHEAD_PERCENT, ratios, serverMicrosecondsPerGet: round(serverMicrosecondsPerGet), authenticationCost: costs, gate: gate.summary() }, null, 2)}\n`,
  );
  log("");
  log(markdown);
  log(`wrote ${file}.json and ${file}.md`);
}
