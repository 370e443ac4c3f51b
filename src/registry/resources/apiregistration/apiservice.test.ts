import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../../api/profile.js";
import { protobufCodec } from "../../../codec/protobuf/codec.js";
import { inProcessServer } from "../../../testing/in-process.js";

type Json = Record<string, unknown>;

const PATH = "/apis/apiregistration.k8s.io/v1/apiservices";
const spec = (extra: Json = {}): Json => ({ group: "metrics.k8s.io", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 100, ...extra });
const apiService = (name: string, body: Json): Json => ({ apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name }, spec: body });

async function readAll(body: unknown): Promise<Buffer> {
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<string | Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe("apiregistration/v1 APIService (kubernetes profile)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("validation refuses what kube's ValidateAPIService refuses, with its causes", async () => {
    const cases: [string, Json, string[]][] = [
      [
        "v1.wrong.example.com",
        spec(),
        ['metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"'],
      ],
      [
        "v2.",
        { version: "v2", groupPriorityMinimum: 1, versionPriority: 1 },
        ["spec.group: Required value: only v1 may have an empty group and it better be legacy kube"],
      ],
      [
        "V1.Bad_Group",
        { group: "Bad_Group", version: "V1", groupPriorityMinimum: 1, versionPriority: 1 },
        ["spec.group: Invalid value", "spec.version: Invalid value"],
      ],
      [
        "v1beta1.metrics.k8s.io",
        spec({ groupPriorityMinimum: 0, versionPriority: 1001 }),
        [
          "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
          "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000",
        ],
      ],
      [
        "v1beta1.metrics.k8s.io",
        spec({ caBundle: "Zm9v", insecureSkipTLSVerify: true }),
        [
          'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
          "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify",
        ],
      ],
      [
        "v1beta1.metrics.k8s.io",
        spec({ service: { port: 70000 }, caBundle: "Zm9v", insecureSkipTLSVerify: true }),
        [
          "spec.service.namespace: Required value",
          "spec.service.name: Required value",
          "spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
          "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present",
        ],
      ],
    ];
    for (const [name, body, expected] of cases) {
      const response = await server.call("POST", PATH, { body: apiService(name, body) });
      assert.equal(response.status, 422, `${name}: ${response.text}`);
      assert.equal(response.json["reason"], "Invalid");
      const causes = ((response.json["details"] as Json)["causes"] as Json[]).map((cause) => `${String(cause["field"])}: ${String(cause["message"])}`);
      for (const text of expected)
        assert.ok(
          causes.some((cause) => cause.startsWith(text)),
          `${name}: ${text} not in ${causes.join(" | ")}`,
        );
    }
  });

  it("a service port defaults to 443, the status starts empty and only the status sub-resource writes it", async () => {
    const created = await server.call("POST", PATH, {
      body: {
        ...apiService("v1beta1.metrics.k8s.io", spec({ service: { namespace: "kube-system", name: "metrics-server" } })),
        status: { conditions: [{ type: "Available", status: "True" }] },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((created.json["spec"] as Json)["service"], { namespace: "kube-system", name: "metrics-server", port: 443 });
    assert.deepEqual(created.json["status"], {});
    // Unconditional writes: the availability controller writes this status too.
    const { resourceVersion: _resourceVersion, ...metadata } = created.json["metadata"] as Json;
    const current = { ...created.json, metadata };
    const condition = { type: "Available", status: "False", reason: "MissingEndpoints", message: "m", lastTransitionTime: "2026-01-01T00:00:00Z" };
    const bad = await server.call("PUT", `${PATH}/v1beta1.metrics.k8s.io/status`, {
      body: { ...current, status: { conditions: [{ ...condition, status: "Maybe" }] } },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.text, /status.conditions\[0\].status: Unsupported value: \\"Maybe\\": supported values: \\"True\\", \\"False\\", \\"Unknown\\"/);
    const written = await server.call("PUT", `${PATH}/v1beta1.metrics.k8s.io/status`, { body: { ...current, status: { conditions: [condition] } } });
    assert.equal(written.status, 200, written.text);
    const local = await server.call("POST", PATH, {
      body: apiService("v1.example.com", { group: "example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 15 }),
    });
    assert.equal(local.status, 201, local.text);
  });

  it("tables show kube's columns: Local or namespace/name, True or the status with its reason", async () => {
    const wanted = [
      ["v1.", "Local", "True"],
      ["v1.example.com", "Local", "True"],
      ["v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (ServiceNotFound)"],
    ];
    let rows: unknown[][] = [];
    // The availability controller writes the conditions a moment after the objects are created.
    for (let attempt = 0; attempt < 100; attempt++) {
      const table = await server.call("GET", PATH, { headers: { accept: "application/json;as=Table;g=meta.k8s.io;v=v1" } });
      assert.equal(table.status, 200, table.text);
      assert.deepEqual(
        (table.json["columnDefinitions"] as Json[]).map((column) => column["name"]),
        ["Name", "Service", "Available", "Age"],
      );
      rows = (table.json["rows"] as Json[]).map((row) => (row["cells"] as unknown[]).slice(0, 3)).filter((cells) => wanted.some((row) => row[0] === cells[0]));
      if (JSON.stringify(rows) === JSON.stringify(wanted)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(rows, wanted);
  });

  it("is served in protobuf as kube's apiregistration/v1 messages", async () => {
    const json = await server.call("GET", `${PATH}/v1beta1.metrics.k8s.io`);
    const response = await server.raw("GET", `${PATH}/v1beta1.metrics.k8s.io`, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    assert.equal(response.headers["content-type"], "application/vnd.kubernetes.protobuf");
    const decoded = protobufCodec(KUBERNETES_PROFILE).decode(await readAll(response.body)) as Json;
    // managedFields' empty manager (an in-process client has no user agent) has no protobuf form; the rest is the same.
    assert.deepEqual([decoded["kind"], decoded["spec"], decoded["status"]], [json.json["kind"], json.json["spec"], json.json["status"]]);
    assert.equal(((decoded["spec"] as Json)["service"] as Json)["port"], 443);
  });
});
