import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer, type TestResponse } from "../testing/in-process.js";
import { WatchReader } from "../testing/watch-reader.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const PODS = "/api/v1/namespaces/default/pods";
const APPLY = { "content-type": "application/apply-patch+yaml" };

function metadata(object: Json): Json {
  return object["metadata"] as Json;
}

function entries(object: Json): Json[] {
  return (metadata(object)["managedFields"] ?? []) as Json[];
}

/** Manager/operation/subresource of each entry, plus its fields, for compact assertions. */
function owners(object: Json): string[] {
  return entries(object).map(
    (entry) =>
      `${String(entry["manager"])} ${String(entry["operation"])}${entry["subresource"] === undefined ? "" : ` ${String(entry["subresource"])}`} ${JSON.stringify(entry["fieldsV1"])}`,
  );
}

function deploymentYaml(name: string, fields: { replicas?: number; image?: string } = {}): string {
  return [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    ...(fields.replicas === undefined ? [] : [`  replicas: ${fields.replicas}`]),
    "  selector:",
    "    matchLabels: {app: web}",
    "  template:",
    "    metadata:",
    "      labels: {app: web}",
    "    spec:",
    "      containers:",
    "      - name: web",
    `        image: ${fields.image ?? "nginx:1"}`,
    "",
  ].join("\n");
}

function assertStatus(response: TestResponse, code: number, reason: string): void {
  assert.equal(response.status, code, response.text);
  assert.equal(response.json["kind"], "Status");
  assert.equal(response.json["reason"], reason);
}

describe("server-side apply through the pipeline", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  const apply = (path: string, body: string, manager: string | undefined, extra = ""): Promise<TestResponse> =>
    server.call("PATCH", `${path}?${manager === undefined ? "" : `fieldManager=${manager}`}${extra}`, { body, headers: APPLY });

  it("creates a missing object from a YAML apply (201) with an Apply entry", async () => {
    const response = await apply(`${DEPLOYMENTS}/create-me`, deploymentYaml("create-me", { replicas: 2 }), "deployer");
    assert.equal(response.status, 201, response.text);
    assert.equal((response.json["spec"] as Json)["replicas"], 2);
    const [entry] = entries(response.json);
    assert.equal(entry?.["manager"], "deployer");
    assert.equal(entry?.["operation"], "Apply");
    assert.equal(entry?.["apiVersion"], "apps/v1");
    assert.equal(entry?.["fieldsType"], "FieldsV1");
    assert.match(String(entry?.["time"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry?.["fieldsV1"], {
      "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {}, "f:name": {} } } },
        },
      },
    });
    const read = await server.call("GET", `${DEPLOYMENTS}/create-me`);
    assert.deepEqual(read.json, response.json);
  });

  it("requires fieldManager for apply: 422 Invalid with a cause on fieldManager, as kube answers", async () => {
    const response = await apply(`${DEPLOYMENTS}/no-manager`, deploymentYaml("no-manager"), undefined);
    assertStatus(response, 422, "Invalid");
    assert.equal(response.json["message"], 'PatchOptions.meta.orch.io "" is invalid: fieldManager: Required value: is required for apply patch');
    assert.deepEqual(response.json["details"], {
      group: "meta.orch.io",
      kind: "PatchOptions",
      causes: [{ reason: "FieldValueRequired", message: "Required value: is required for apply patch", field: "fieldManager" }],
    });
  });

  it("refuses force on other patches and unprintable or overlong managers with 422", async () => {
    await server.call("POST", CONFIGMAPS, { body: { metadata: { name: "opts" } } });
    const forced = await server.call("PATCH", `${CONFIGMAPS}/opts?force=true`, {
      body: { data: { a: "b" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assertStatus(forced, 422, "Invalid");
    assert.equal(forced.json["message"], 'PatchOptions.meta.orch.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const long = await server.call("POST", `${CONFIGMAPS}?fieldManager=${"m".repeat(129)}`, { body: { metadata: { name: "long" } } });
    assertStatus(long, 422, "Invalid");
    assert.match(String(long.json["message"]), /^CreateOptions\.meta\.orch\.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes$/);
    const unprintable = await server.call("PUT", `${CONFIGMAPS}/opts?fieldManager=a%07b`, { body: { metadata: { name: "opts" } } });
    assertStatus(unprintable, 422, "Invalid");
    assert.match(
      String(unprintable.json["message"]),
      /^UpdateOptions\.meta\.orch\.io "" is invalid: fieldManager: Invalid value: "a\\u0007b": invalid character U\+0007 \(at position 1\)$/,
    );
  });

  it("refuses a configuration of another type, and a body that is no map, with kube's 400 texts", async () => {
    const secret = await apply(`${CONFIGMAPS}/typed`, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: typed\n", "typer");
    assertStatus(secret, 400, "BadRequest");
    assert.equal(secret.json["message"], "invalid object type: /v1, Kind=Secret");
    const beta = await apply(`${DEPLOYMENTS}/typed`, deploymentYaml("typed").replace("apps/v1", "apps/v1beta2"), "typer");
    assert.equal(beta.json["message"], "invalid object type: apps/v1beta2, Kind=Deployment");
    const list = await apply(`${CONFIGMAPS}/typed`, "- a\n- b\n", "typer");
    assertStatus(list, 400, "BadRequest");
    assert.equal(
      list.json["message"],
      "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
    );
    const empty = await apply(`${CONFIGMAPS}/typed`, "null\n", "typer");
    assert.equal(empty.json["message"], "invalid object type: /, Kind=");
  });

  it("rejects apply bodies carrying managedFields (400) and answers conflicts with 409 listing each field and manager", async () => {
    await apply(`${DEPLOYMENTS}/contested`, deploymentYaml("contested", { replicas: 1 }), "deployer");
    const withManaged = await apply(
      `${DEPLOYMENTS}/contested`,
      `${deploymentYaml("contested")}`.replace("  name: contested", "  name: contested\n  managedFields: []"),
      "deployer",
    );
    assertStatus(withManaged, 400, "BadRequest");
    assert.equal(withManaged.json["message"], "metadata.managedFields must be nil");
    const conflict = await apply(`${DEPLOYMENTS}/contested`, deploymentYaml("contested", { replicas: 3, image: "nginx:2" }), "other");
    assertStatus(conflict, 409, "Conflict");
    assert.equal(
      conflict.json["message"],
      'Apply failed with 2 conflicts: conflicts with "deployer":\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image',
    );
    assert.deepEqual((conflict.json["details"] as Json)["causes"], [
      { reason: "FieldManagerConflict", message: 'conflict with "deployer"', field: ".spec.replicas" },
      { reason: "FieldManagerConflict", message: 'conflict with "deployer"', field: '.spec.template.spec.containers[name="web"].image' },
    ]);
    const forced = await apply(`${DEPLOYMENTS}/contested`, deploymentYaml("contested", { replicas: 3, image: "nginx:2" }), "other", "&force=true");
    assert.equal(forced.status, 200, forced.text);
    assert.equal((forced.json["spec"] as Json)["replicas"], 3);
    const managers = entries(forced.json).map((entry) => entry["manager"]);
    assert.deepEqual(managers, ["deployer", "other"]);
    assert.equal(JSON.stringify(entries(forced.json)[0]?.["fieldsV1"]).includes("f:replicas"), false);
  });

  it("does not consume a resourceVersion when the same configuration is applied again", async () => {
    const first = await apply(`${DEPLOYMENTS}/steady`, deploymentYaml("steady", { replicas: 1 }), "deployer");
    const revision = server.storage.currentRevision();
    const second = await apply(`${DEPLOYMENTS}/steady`, deploymentYaml("steady", { replicas: 1 }), "deployer");
    assert.equal(second.status, 200);
    assert.equal(server.storage.currentRevision(), revision);
    assert.equal(metadata(second.json)["resourceVersion"], metadata(first.json)["resourceVersion"]);
    assert.deepEqual(second.json, first.json);
  });

  it("records Update entries on create, update and every patch type, naming the manager from fieldManager or the User-Agent", async () => {
    const created = await server.call("POST", CONFIGMAPS, {
      body: { metadata: { name: "tracked" }, data: { a: "1" } },
      headers: { "user-agent": "kubectl/v1.30.13 (linux/amd64) kubernetes/abc" },
    });
    assert.deepEqual(owners(created.json), ['kubectl Update {"f:data":{".":{},"f:a":{}}}']);
    const put = await server.call("PUT", `${CONFIGMAPS}/tracked?fieldManager=putter`, { body: { ...created.json, data: { a: "1", b: "2" } } });
    assert.deepEqual(owners(put.json), ['kubectl Update {"f:data":{".":{},"f:a":{}}}', 'putter Update {"f:data":{"f:b":{}}}']);
    const merge = await server.call("PATCH", `${CONFIGMAPS}/tracked?fieldManager=merger`, {
      body: { data: { c: "3" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    const json = await server.call("PATCH", `${CONFIGMAPS}/tracked?fieldManager=jsoner`, {
      body: [{ op: "add", path: "/data/d", value: "4" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    const strategic = await server.call("PATCH", `${CONFIGMAPS}/tracked`, {
      body: { data: { a: "changed" } },
      headers: { "content-type": "application/strategic-merge-patch+json", "user-agent": "edit-tool/2" },
    });
    assert.equal(merge.status, 200);
    assert.equal(json.status, 200);
    // kubectl keeps owning the data map itself; each field belongs to whoever wrote it last.
    assert.deepEqual([...owners(strategic.json)].sort(), [
      'edit-tool Update {"f:data":{"f:a":{}}}',
      'jsoner Update {"f:data":{"f:d":{}}}',
      'kubectl Update {"f:data":{}}',
      'merger Update {"f:data":{"f:c":{}}}',
      'putter Update {"f:data":{"f:b":{}}}',
    ]);
  });

  it("tracks the status sub-resource as its own entry and keeps status out of the resource's entries", async () => {
    await server.call("POST", PODS, {
      body: { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }] }, status: { phase: "Ignored" } },
      headers: { "user-agent": "creator" },
    });
    const status = await server.call("PUT", `${PODS}/p/status?fieldManager=kubelet`, {
      body: { metadata: { name: "p" }, spec: { containers: [] }, status: { phase: "Running" } },
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(
      owners(status.json).filter((owner) => owner.startsWith("kubelet")),
      ['kubelet Update status {"f:status":{"f:phase":{}}}'],
    );
    assert.equal(
      owners(status.json).some((owner) => owner.startsWith("creator") && owner.includes("f:status")),
      false,
    );
    const applied = await server.call("PATCH", `${PODS}/p/status?fieldManager=ssa-kubelet`, {
      body: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nstatus:\n  podIP: 10.0.0.1\n",
      headers: APPLY,
    });
    assert.equal(applied.status, 200, applied.text);
    assert.ok(owners(applied.json).includes('ssa-kubelet Apply status {"f:status":{"f:podIP":{}}}'), owners(applied.json).join("\n"));
  });

  it("resets ownership with managedFields [{}] via merge patch, JSON patch or update, but not with []", async () => {
    const base = { metadata: { name: "reset" }, data: { a: "1", b: "2" } };
    const check = async (request: () => Promise<TestResponse>, expected: string[]): Promise<void> => {
      await server.call("DELETE", `${CONFIGMAPS}/reset`);
      await server.call("POST", `${CONFIGMAPS}?fieldManager=creator`, { body: base });
      const response = await request();
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(owners(response.json), expected);
    };
    const mergePatch = { "content-type": "application/merge-patch+json" };
    await check(
      () => server.call("PATCH", `${CONFIGMAPS}/reset?fieldManager=resetter`, { body: { metadata: { managedFields: [{}] } }, headers: mergePatch }),
      [],
    );
    await check(
      () =>
        server.call("PATCH", `${CONFIGMAPS}/reset?fieldManager=resetter`, {
          body: { metadata: { managedFields: [{}] }, data: { a: "changed" } },
          headers: mergePatch,
        }),
      ['resetter Update {"f:data":{"f:a":{}}}'],
    );
    await check(
      () =>
        server.call("PATCH", `${CONFIGMAPS}/reset?fieldManager=resetter`, {
          body: [{ op: "replace", path: "/metadata/managedFields", value: [{}] }],
          headers: { "content-type": "application/json-patch+json" },
        }),
      [],
    );
    await check(async () => {
      const current = await server.call("GET", `${CONFIGMAPS}/reset`);
      return server.call("PUT", `${CONFIGMAPS}/reset?fieldManager=resetter`, {
        body: { ...current.json, metadata: { ...metadata(current.json), managedFields: [{}] }, data: { a: "1", b: "2", c: "3" } },
      });
    }, ['resetter Update {"f:data":{"f:c":{}}}']);
    await check(
      () => server.call("PATCH", `${CONFIGMAPS}/reset?fieldManager=resetter`, { body: { metadata: { managedFields: [] } }, headers: mergePatch }),
      ['creator Update {"f:data":{".":{},"f:a":{},"f:b":{}}}'],
    );
  });

  it("leaves managedFields out of responses with omitManagedFields=true: get, list, watch and writes", async () => {
    const created = await server.call("POST", `${CONFIGMAPS}?fieldManager=m&omitManagedFields=true`, {
      body: { metadata: { name: "slim", labels: { slim: "yes" } } },
    });
    assert.equal(created.status, 201);
    assert.equal(metadata(created.json)["managedFields"], undefined);
    assert.notEqual(metadata((await server.call("GET", `${CONFIGMAPS}/slim`)).json)["managedFields"], undefined);
    assert.equal(metadata((await server.call("GET", `${CONFIGMAPS}/slim?omitManagedFields=true`)).json)["managedFields"], undefined);
    const list = await server.call("GET", `${CONFIGMAPS}?labelSelector=slim%3Dyes&omitManagedFields`);
    const items = list.json["items"] as Json[];
    assert.equal(items.length, 1);
    assert.equal(metadata(items[0] ?? {})["managedFields"], undefined);
    const controller = new AbortController();
    const watch = new WatchReader(
      await server.raw("GET", `${CONFIGMAPS}?watch=1&labelSelector=slim%3Dyes&omitManagedFields=true`, { signal: controller.signal }),
    );
    try {
      const [added] = await watch.next(1);
      assert.equal(added?.type, "ADDED");
      assert.equal(added?.object.metadata?.["managedFields"], undefined);
    } finally {
      controller.abort();
      await watch.close();
    }
    const patched = await apply(
      `${CONFIGMAPS}/slim`,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slim\ndata:\n  x: y\n",
      "m2",
      "&omitManagedFields=true",
    );
    assert.equal(patched.status, 200, patched.text);
    assert.equal(metadata(patched.json)["managedFields"], undefined);
  });

  it("keeps kubectl's strategic merge patches merging containers by name from the kind's schema", async () => {
    await server.call("POST", PODS, {
      body: {
        metadata: { name: "smp" },
        spec: {
          containers: [
            { name: "a", image: "1" },
            { name: "b", image: "1" },
          ],
        },
      },
    });
    const patched = await server.call("PATCH", `${PODS}/smp`, {
      body: { spec: { containers: [{ name: "b", image: "2" }] } },
      headers: { "content-type": "application/strategic-merge-patch+json" },
    });
    assert.deepEqual(
      ((patched.json["spec"] as Json)["containers"] as Json[]).map((container) => `${String(container["name"])}=${String(container["image"])}`),
      ["a=1", "b=2"],
    );
  });
});
