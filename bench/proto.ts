/**
 * Protobuf vs JSON (`npm run bench -- --suite proto`, about 2 minutes): the codec alone (µs to
 * encode and decode a Pod), then the CLI as a child process (sqlite) with 10k ~1 KiB ConfigMaps:
 * GET throughput at c=64 (HTTP/1.1 keep-alive) and the server's CPU per GET, LIST of the 10k at
 * rv=0 (request → last byte, median of 5, server CPU per list), and watch fan-out: 100 watchers,
 * each on its own TLS connection, while a writer creates 200 ConfigMaps/s; delay = event
 * arrival − the write being sent (the acknowledgement travels on another connection and may come
 * after the event), p50/p99 over every event at every watcher. The same for JSON and protobuf watchers. Writes bench/results/<date>-proto.{json,md}.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { protobufCodec } from "../src/codec/protobuf/codec.js";
import { h2Client, type Target } from "./lib/client.js";
import { machineEnvironment } from "./lib/environment.js";
import { loadConfigMaps } from "./lib/lists.js";
import { namespaceBody } from "./lib/objects.js";
import { makeTempDir } from "./lib/processes.js";
import { table } from "./lib/report.js";
import { type GetResult, type ListResult, measureGets, measureList, measureWatch, rawClient, type WatchResult } from "./lib/probes.js";
import { adminCredentials, REPO_ROOT, startServerChild } from "./lib/server.js";
import { median, round } from "./lib/stats.js";

export interface ProtoSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
}

const NAMESPACE = "bench-proto";
const PB = ORCH_PROFILE.protobufMediaType;
const JSON_TYPE = "application/json";
const FORMATS = [
  { name: "json", accept: JSON_TYPE },
  { name: "protobuf", accept: PB },
] as const;
const log = (text: string): void => void process.stdout.write(`${text}\n`);

/** A Pod as the server keeps it: two containers, probes, resources, volumes, managedFields, status. */
function samplePod(): Record<string, unknown> {
  const container = (name: string) => ({
    name,
    image: `registry.example/${name}:1.2.3`,
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    env: [
      { name: "MODE", value: "bench" },
      { name: "POD", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
    ],
    resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "64Mi" } },
    livenessProbe: {
      httpGet: { path: "/healthz", port: "http", scheme: "HTTP" },
      periodSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    volumeMounts: [{ name: "config", mountPath: "/etc/app", readOnly: true }],
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web-7d4b9c8f6-x2x9z",
      namespace: "default",
      uid: "0b6f6c9e-4a55-4a3c-9d0a-2f3c0a1e8d11",
      resourceVersion: "123456",
      creationTimestamp: "2024-05-01T12:00:00Z",
      labels: { app: "web", "pod-template-hash": "7d4b9c8f6" },
      annotations: { "example.com/owner": "team-a" },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "web-7d4b9c8f6",
          uid: "6b1d1a64-5d71-4f0b-9f8f-0c1f1f1f1f1f",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: "2024-05-01T12:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
        },
      ],
    },
    spec: {
      containers: [container("app"), container("sidecar")],
      volumes: [{ name: "config", configMap: { name: "web-config", defaultMode: 420 } }],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: "node-1",
      schedulerName: "default-scheduler",
      tolerations: [{ key: "node.example/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }],
      enableServiceLinks: true,
      priority: 0,
    },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2024-05-01T12:00:05Z" }],
      hostIP: "10.0.0.1",
      podIP: "10.1.0.7",
      startTime: "2024-05-01T12:00:01Z",
      qosClass: "Burstable",
    },
  };
}

interface CodecResult {
  readonly format: string;
  readonly bytes: number;
  readonly encodeMicros: number;
  readonly decodeMicros: number;
}

function timeMicros(iterations: number, action: () => unknown): number {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let index = 0; index < iterations; index++) action();
    rounds.push(((performance.now() - started) * 1000) / iterations);
  }
  return median(rounds);
}

function measureCodec(iterations: number): CodecResult[] {
  const pod = samplePod();
  const codec = protobufCodec(ORCH_PROFILE);
  const text = JSON.stringify(pod);
  const bytes = codec.encode(pod);
  // Warm both paths (plans, shapes) before timing.
  for (let index = 0; index < 2000; index++) {
    JSON.parse(JSON.stringify(pod));
    codec.decode(codec.encode(pod));
  }
  return [
    {
      format: "json",
      bytes: Buffer.byteLength(text),
      encodeMicros: round(timeMicros(iterations, () => JSON.stringify(pod))),
      decodeMicros: round(timeMicros(iterations, () => JSON.parse(text))),
    },
    {
      format: "protobuf",
      bytes: bytes.length,
      encodeMicros: round(timeMicros(iterations, () => codec.encode(pod))),
      decodeMicros: round(timeMicros(iterations, () => codec.decode(bytes))),
    },
  ];
}

export async function runProtoSuite(options: ProtoSuiteOptions): Promise<void> {
  const quick = options.quick;
  log("proto suite: codec");
  const codec = measureCodec(quick ? 2000 : 20000);
  const dataDir = makeTempDir("orch-bench-proto-");
  const server = await startServerChild({ dataDir });
  const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
  try {
    const loader = await h2Client(target);
    await loader.request("POST", "/api/v1/namespaces", namespaceBody(NAMESPACE));
    const items = quick ? 1000 : 10000;
    log(`proto suite: loading ${items} ConfigMaps`);
    await loadConfigMaps(loader, NAMESPACE, 0, items, 32, 1024);
    loader.close();
    const client = rawClient(target, 64);
    const gets: GetResult[] = [];
    const lists: ListResult[] = [];
    for (const format of FORMATS) {
      log(`proto suite: GET ${format.name}`);
      gets.push(await measureGets(client, server.pid, format, { warmupMs: quick ? 500 : 2000, phaseMs: quick ? 2000 : 8000, namespace: NAMESPACE }));
    }
    for (const format of FORMATS) {
      log(`proto suite: LIST ${format.name}`);
      lists.push(await measureList(client, server.pid, format, { rounds: 5, namespace: NAMESPACE, query: "resourceVersion=0" }));
    }
    client.close();
    const watches: WatchResult[] = [];
    for (const format of FORMATS) {
      log(`proto suite: watch fan-out ${format.name}`);
      watches.push(
        await measureWatch(target, server.pid, format, { watchers: 100, rate: 200, seconds: quick ? 3 : 10, runId: `w${format.name}`, namespace: NAMESPACE }),
      );
      // Let the previous phase's connections close before the next opens its watches.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const [getJson, getPb] = gets;
    const [listJson, listPb] = lists;
    const [watchJson, watchPb] = watches;
    const ratios = {
      getThroughputProtobufOverJson: round((getPb?.perSecond ?? 0) / (getJson?.perSecond ?? 1)),
      listTimeProtobufOverJson: round((listPb?.medianMs ?? 0) / (listJson?.medianMs ?? 1)),
      watchP50ProtobufOverJson: round((watchPb?.delayMs.p50Ms ?? 0) / (watchJson?.delayMs.p50Ms ?? 1)),
      watchP99ProtobufOverJson: round((watchPb?.delayMs.p99Ms ?? 0) / (watchJson?.delayMs.p99Ms ?? 1)),
    };
    const results = { suite: "proto", quick, items, environment: machineEnvironment(REPO_ROOT), codec, gets, lists, watches, ratios };
    const fixed = (value: number): string => value.toFixed(1);
    const markdown = [
      `# Protobuf vs JSON${quick ? " (quick)" : ""}`,
      "",
      `Server: the CLI as a child process (sqlite), ${items} ConfigMaps of ~1 KiB. Targets: protobuf GET throughput ≥ JSON's; protobuf LIST ≤ 0.7× JSON's time; watch delay within 10 % of JSON's.`,
      "",
      "## Codec (one Pod, in process)",
      "",
      table(
        ["format", "bytes", "encode µs", "decode µs"],
        codec.map((row) => [row.format, String(row.bytes), String(row.encodeMicros), String(row.decodeMicros)]),
      ),
      "",
      "## GET c=64 (HTTP/1.1 keep-alive)",
      "",
      table(
        ["format", "GETs/s", "server CPU µs/GET", "body bytes"],
        gets.map((row) => [row.format, String(row.perSecond), String(row.serverCpuMicrosPerRequest), String(row.bytes)]),
      ),
      "",
      `## LIST of ${items} at rv=0 (median of 5)`,
      "",
      table(
        ["format", "ms", "server CPU ms/list", "bytes"],
        lists.map((row) => [row.format, String(row.medianMs), String(row.serverCpuMsPerList), String(row.bytes)]),
      ),
      "",
      "## Watch fan-out: 100 watchers, 200 writes/s",
      "",
      table(
        ["format", "writes/s", "events / expected", "p50 ms", "p90 ms", "p99 ms", "max ms", "server CPU %"],
        watches.map((row) => [
          row.format,
          String(row.writesPerSecond),
          `${row.events} / ${row.expected}`,
          fixed(row.delayMs.p50Ms),
          fixed(row.delayMs.p90Ms),
          fixed(row.delayMs.p99Ms),
          fixed(row.delayMs.maxMs),
          String(row.serverCpuPercent),
        ]),
      ),
      "",
      "## Ratios (protobuf / JSON)",
      "",
      table(
        ["measure", "ratio"],
        Object.entries(ratios).map(([name, value]) => [name, String(value)]),
      ),
      "",
    ].join("\n");
    mkdirSync(options.outDir, { recursive: true });
    const stem = join(options.outDir, `${new Date().toISOString().slice(0, 10)}-proto${quick ? "-quick" : ""}`);
    writeFileSync(`${stem}.json`, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(`${stem}.md`, markdown);
    log(markdown);
  } finally {
    await server.stop(5000);
  }
}
