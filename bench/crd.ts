/**
 * CRD suite: custom resources at operator scale, the whole pipeline in process (the memory
 * store, so RSS includes the stored definitions). Installs `--crd-count` definitions shaped like
 * controller-gen output of about `--crd-kb` KB each (nested, described, string enums, defaults,
 * CEL rules, two versions), then reports: time until all are Established, RSS growth per
 * definition, aggregated discovery and OpenAPI v3 of one group version right after the last
 * one, and custom object creates/s at concurrency 16 on a definition with CEL rules against
 * ConfigMap creates/s in the same run.
 *
 *   npm run bench -- --suite crd [--crd-count 2000] [--crd-kb 300]   writes bench/results/<date>-crd.{json,md}
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { machineEnvironment } from "./lib/environment.js";
import { REPO_ROOT } from "./lib/server.js";
import { round } from "./lib/stats.js";

export interface CrdSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly count: number;
  readonly kilobytes: number;
}

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const DISCOVERY_ACCEPT = `application/json;g=apidiscovery.${ORCH_PROFILE.apiDomain};v=v2;as=APIGroupDiscoveryList`;

type Server = Awaited<ReturnType<typeof inProcessServer>>;

function rssMb(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  return process.memoryUsage().rss / 1024 / 1024;
}

async function creates(server: Server, path: string, body: (index: number) => unknown, total: number): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    for (let index = next++; index < total; index = next++) {
      const response = await server.call("POST", path, { body: body(index) });
      if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function timed(call: () => Promise<{ status: number }>): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await call();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function runCrdSuite(options: CrdSuiteOptions): Promise<void> {
  const count = options.quick ? Math.min(options.count, 20) : options.count;
  const server = await inProcessServer();
  try {
    const before = rssMb();
    const start = process.hrtime.bigint();
    let schemaBytes = 0;
    for (let index = 0; index < count; index++) {
      const fixture = crdFixture({
        group: `g${index}.bench.example.com`,
        plural: "things",
        kind: "Thing",
        apiextensionsGroup: APIEXTENSIONS,
        padding: options.kilobytes * 1024,
      });
      if (index === 0) schemaBytes = JSON.stringify(fixture).length;
      const response = await server.call("POST", CRDS, { body: fixture });
      if (response.status !== 201) throw new Error(`CRD ${index}: ${response.status} ${response.text.slice(0, 300)}`);
    }
    const last = `/apis/g${count - 1}.bench.example.com/v1`;
    for (;;) {
      const response = await server.call("GET", last);
      if (response.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const establishedSeconds = Number(process.hrtime.bigint() - start) / 1e9;
    const after = rssMb();
    const discoveryMs = await timed(() => server.call("GET", "/apis", { headers: { accept: DISCOVERY_ACCEPT } }));
    const openApiMs = await timed(() => server.call("GET", `/openapi/v3${last}`));
    const total = options.quick ? 200 : 2000;
    const thing = (index: number) => ({
      apiVersion: `g0.bench.example.com/v1`,
      kind: "Thing",
      metadata: { name: `t-${index}` },
      spec: { image: "nginx:1.25", replicas: 3, ports: [{ name: "http", port: 80 }] },
    });
    const configMap = (index: number) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c-${index}` }, data: { a: "1" } });
    // Warm-up of both paths, then measured runs.
    await creates(server, "/apis/g0.bench.example.com/v1/namespaces/default/things", (index) => ({ ...thing(index), metadata: { name: `w-${index}` } }), 100);
    await creates(server, "/api/v1/namespaces/default/configmaps", (index) => ({ ...configMap(index), metadata: { name: `w-${index}` } }), 100);
    const customPerSecond = await creates(server, "/apis/g0.bench.example.com/v1/namespaces/default/things", thing, total);
    const configMapsPerSecond = await creates(server, "/api/v1/namespaces/default/configmaps", configMap, total);
    const results = {
      suite: "crd",
      date: new Date().toISOString(),
      environment: machineEnvironment(REPO_ROOT),
      definitions: count,
      definitionBytes: schemaBytes,
      establishedSeconds: round(establishedSeconds),
      rssMbPerDefinition: round((after - before) / count),
      discoveryMs: round(discoveryMs),
      openApiV3Ms: round(openApiMs),
      customCreatesPerSecond: round(customPerSecond),
      configMapCreatesPerSecond: round(configMapsPerSecond),
      customToConfigMapPercent: round((customPerSecond / configMapsPerSecond) * 100),
    };
    mkdirSync(options.outDir, { recursive: true });
    const stem = `${new Date().toISOString().slice(0, 10)}-crd${options.quick ? "-quick" : ""}`;
    writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
    const markdown = [
      "# Custom resources at scale",
      "",
      `${count} CustomResourceDefinitions of ${round(schemaBytes / 1024)} KB each (controller-gen shaped, two versions, CEL rules), in process, memory store.`,
      "",
      "| measure | value | target |",
      "|---|---|---|",
      `| time until all Established | ${results.establishedSeconds} s | |`,
      `| RSS growth per definition (stored object included) | ${results.rssMbPerDefinition} MB | ≤ 1 MB |`,
      `| aggregated discovery after the last one | ${results.discoveryMs} ms | ≤ 50 ms |`,
      `| OpenAPI v3 of one group version after the last one | ${results.openApiV3Ms} ms | ≤ 50 ms |`,
      `| custom object creates/s, c=16 (CEL rules declared) | ${results.customCreatesPerSecond} | |`,
      `| ConfigMap creates/s, c=16, same run | ${results.configMapCreatesPerSecond} | |`,
      `| custom / ConfigMap | ${results.customToConfigMapPercent} % | ≥ 70 % |`,
      "",
    ].join("\n");
    writeFileSync(join(options.outDir, `${stem}.md`), markdown);
    process.stdout.write(markdown);
  } finally {
    await server.stop();
  }
}
