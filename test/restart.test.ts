// The CLI as a real child process: durability across graceful and hard (SIGKILL) restarts, and
// graceful stop finishing in-flight requests.
import assert from "node:assert/strict";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { readFileSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli, type CliServer } from "./helpers/cli.js";
import { configMap, connectHttp2, credentialsFromKubeconfig, json, parseJson, request, type Credentials, type Http2Client } from "./helpers/http.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

interface Meta {
  name: string;
  uid: string;
  resourceVersion: string;
}

function metaOf(object: Record<string, unknown>): Meta {
  const metadata = object["metadata"] as Meta;
  return { name: metadata.name, uid: metadata.uid, resourceVersion: metadata.resourceVersion };
}

async function listConfigMaps(credentials: Credentials): Promise<Map<string, Meta>> {
  const result = await request(credentials, "GET", CONFIGMAPS);
  assert.equal(result.status, 200, result.body);
  const items = json(result)["items"] as Record<string, unknown>[];
  // The root-CA config map is the publisher's, not a client's.
  return new Map(items.filter((item) => metaOf(item).name !== ORCH_PROFILE.rootCAConfigMap).map((item) => [metaOf(item).name, metaOf(item)]));
}

/** Creates configmaps `${prefix}0..count-1` over one HTTP/2 session, `window` at a time. */
async function createMany(client: Http2Client, prefix: string, count: number, window = 32): Promise<Map<string, Meta>> {
  const created = new Map<string, Meta>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const name = `${prefix}${next++}`;
      const result = await client.request("POST", CONFIGMAPS, { body: configMap(name, { index: name, padding: "x".repeat(256) }) });
      assert.equal(result.status, 201, result.body);
      created.set(name, metaOf(json(result)));
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
  return created;
}

describe("the CLI across restarts", () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** Starts the CLI on `dataDir`; it is SIGKILLed in `after` if a test leaves it running. */
  async function start(dataDir: string, port: number, extra: readonly string[] = []): Promise<{ cli: CliServer; credentials: Credentials }> {
    const cli = await startCli(["--data-dir", dataDir, "--secure-port", String(port), ...extra]);
    cleanups.push(async () => void (await cli.stop("SIGKILL")));
    const credentials = credentialsFromKubeconfig(readFileSync(join(dataDir, "admin.kubeconfig"), "utf8"));
    assert.equal(credentials.url, cli.url);
    return { cli, credentials };
  }

  function tempDataDir(): string {
    const dir = makeTempDir("orch-restart-");
    cleanups.push(async () => removeDir(dir));
    return dir;
  }

  it("keeps every object (same uid and resourceVersion) and the certificates across a graceful restart", async () => {
    const dataDir = tempDataDir();
    const port = 0;
    const first = await start(dataDir, port);
    const caBefore = readFileSync(join(dataDir, "pki", "ca.crt"), "utf8");
    const adminBefore = readFileSync(join(dataDir, "pki", "admin.crt"), "utf8");
    const client = await connectHttp2(first.credentials);
    const created = await createMany(client, "durable-", 50);
    await client.close();
    assert.equal(created.size, 50);

    assert.deepEqual(await first.cli.stop("SIGTERM"), { code: 0, signal: null });

    const second = await start(dataDir, port);
    assert.equal(readFileSync(join(dataDir, "pki", "ca.crt"), "utf8"), caBefore, "the CA must be reused");
    assert.equal(readFileSync(join(dataDir, "pki", "admin.crt"), "utf8"), adminBefore, "the admin certificate must be reused");
    assert.equal(second.credentials.ca, caBefore);
    const listed = await listConfigMaps(second.credentials);
    for (const [name, meta] of created) assert.deepEqual(listed.get(name), meta, `${name} after restart`);
    // Writes continue from the restored revision.
    const next = await request(second.credentials, "POST", CONFIGMAPS, { body: configMap("after-restart") });
    assert.equal(next.status, 201, next.body);
    const maxBefore = Math.max(...[...created.values()].map((meta) => Number(meta.resourceVersion)));
    assert.ok(Number(metaOf(json(next)).resourceVersion) > maxBefore, "resourceVersions must keep increasing after a restart");
    assert.deepEqual(await second.cli.stop("SIGTERM"), { code: 0, signal: null });
  });

  it("keeps every acknowledged create when SIGKILLed mid-stream", async () => {
    const dataDir = tempDataDir();
    const port = 0;
    const first = await start(dataDir, port);
    const client = await connectHttp2(first.credentials);
    const acknowledged = new Map<string, Meta>();
    const attempted = new Set<string>();
    const killAt = 150;
    let inFlightAtKill = 0;
    let inFlight = 0;
    let killed = false;
    let next = 0;
    // A sliding window of concurrent creates; the process is killed from inside the callback of
    // the killAt-th acknowledgement, so other creates are always in flight at that moment.
    const worker = async (): Promise<void> => {
      while (!killed && next < 10_000) {
        const name = `hard-${next++}`;
        attempted.add(name);
        inFlight++;
        try {
          const result = await client.request("POST", CONFIGMAPS, { body: configMap(name, { v: name }) });
          if (result.status === 201) acknowledged.set(name, metaOf(json(result)));
          else assert.fail(`unexpected ${result.status}: ${result.body}`);
        } catch (error) {
          if (!killed) throw error;
        } finally {
          inFlight--;
        }
        if (!killed && acknowledged.size >= killAt) {
          killed = true;
          inFlightAtKill = inFlight;
          first.cli.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: 48 }, worker));
    assert.deepEqual(await first.cli.exited(), { code: null, signal: "SIGKILL" });
    await client.close();
    assert.ok(inFlightAtKill > 0, "some creates must be in flight when the process is killed");

    const second = await start(dataDir, port);
    const listed = await listConfigMaps(second.credentials);
    for (const [name, meta] of acknowledged) assert.deepEqual(listed.get(name), meta, `acknowledged ${name} lost after SIGKILL`);
    for (const name of listed.keys()) assert.ok(attempted.has(name), `unexpected object ${name}`);
    assert.deepEqual(await second.cli.stop("SIGTERM"), { code: 0, signal: null });
  });

  describe("graceful stop", () => {
    it("lets an in-flight list of 2,000 configmaps finish with 200", async () => {
      const dataDir = tempDataDir();
      const { cli, credentials } = await start(dataDir, 0, ["--storage-backend", "memory"]);
      const client = await connectHttp2(credentials);
      await createMany(client, "bulk-", 2_000, 64);
      await client.close();

      const req = https.request(new URL(CONFIGMAPS, credentials.url), { ca: credentials.ca, cert: credentials.cert, key: credentials.key, agent: false });
      const response = new Promise<{ status: number; body: string; complete: boolean }>((resolve, reject) => {
        req.on("error", reject);
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), complete: res.complete }));
        });
      });
      // Barrier: once the request is flushed to the socket, a round trip on a second connection
      // guarantees the server has read the list request (its bytes were queued first).
      await new Promise<void>((resolve) => req.end(() => resolve()));
      const readyz = await request({ url: credentials.url, ca: credentials.ca }, "GET", "/readyz");
      assert.equal(readyz.status, 200);
      cli.child.kill("SIGTERM");

      const result = await response;
      assert.equal(result.status, 200);
      assert.ok(result.complete, "the response must not be cut short");
      const items = parseJson(result.body, result.status)["items"] as { metadata: { name: string } }[];
      assert.equal(items.filter((item) => item.metadata.name.startsWith("bulk-")).length, 2_000);
      assert.deepEqual(await cli.exited(), { code: 0, signal: null });
    });

    it("finishes a request whose body is still arriving when SIGTERM comes, and refuses new connections", async () => {
      const dataDir = tempDataDir();
      const { cli, credentials } = await start(dataDir, 0, ["--storage-backend", "memory"]);
      const body = JSON.stringify(configMap("late-body", { k: "v" }));
      const half = Math.floor(body.length / 2);
      const req = https.request(new URL(CONFIGMAPS, credentials.url), {
        method: "POST",
        ca: credentials.ca,
        cert: credentials.cert,
        key: credentials.key,
        agent: false,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
      });
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        req.on("error", reject);
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        });
      });
      req.flushHeaders();
      await new Promise<void>((resolve, reject) => req.write(body.slice(0, half), (error) => (error ? reject(error) : resolve())));
      // Barrier (as above): the server has parsed the POST's headers, so the request is in flight.
      assert.equal((await request({ url: credentials.url, ca: credentials.ca }, "GET", "/readyz")).status, 200);
      cli.child.kill("SIGTERM");
      // The listener closes: new connections are refused (or readyz fails) while the POST waits.
      await waitFor(
        async () => {
          try {
            return (await request({ url: credentials.url, ca: credentials.ca }, "GET", "/readyz", { timeoutMs: 2_000 })).status !== 200;
          } catch {
            return true;
          }
        },
        { timeoutMs: 10_000, what: "the server to stop accepting work after SIGTERM" },
      );
      assert.equal(cli.child.exitCode, null, "the server must wait for the in-flight request");
      req.end(body.slice(half));
      const result = await response;
      assert.equal(result.status, 201, result.body);
      assert.equal(metaOf(parseJson(result.body, result.status)).name, "late-body");
      assert.deepEqual(await cli.exited(), { code: 0, signal: null });
    });
  });
});
