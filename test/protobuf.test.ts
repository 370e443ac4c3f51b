// The protobuf wire format against real clients: kubectl 1.32/1.33 (which post built-in kinds as
// protobuf) and raw requests decoded with the server's own codec.
import assert from "node:assert/strict";
import https from "node:https";
import { before, describe, it } from "node:test";
import { parse } from "yaml";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { protobufCodec } from "../src/codec/protobuf/codec.js";
import { encodeEnvelope } from "../src/codec/protobuf/envelope.js";
import { encodeMessage } from "../src/codec/protobuf/message.js";
import { type Credentials, configMap, json, request } from "./helpers/http.js";
import { kubectlFor, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

/** The releases that post built-in kinds as protobuf, resolved by test/helpers/kubectl.ts. */
const NEW_KUBECTLS = ["1.33", "1.32"] as const;
const ORCH_PB = "application/vnd.orch.protobuf";
const KUBE_PB = "application/vnd.kubernetes.protobuf";
/**
 * A user agent names the field manager. Without one the server records `manager: ""`, which the
 * protobuf form cannot tell from absent (kube's `omitempty`), so JSON and protobuf would differ.
 */
const AGENT = { "user-agent": "protobuf-test/1.0" };

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

interface RawResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A request whose body and answer are bytes (the JSON helper reads text). */
function raw(credentials: Credentials, method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, credentials.url);
    const req = https.request(url, { method, headers, ca: credentials.ca, cert: credentials.cert, key: credentials.key }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : Buffer.from(body));
  });
}

/** Reads `count` watch frames (4-byte length + WatchEvent) from a protobuf watch, then closes it. */
function watchFrames(credentials: Credentials, path: string, count: number, accept = ORCH_PB): Promise<{ contentType: string; frames: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, credentials.url);
    const req = https.request(url, { headers: { accept }, ca: credentials.ca, cert: credentials.cert, key: credentials.key }, (response) => {
      let buffered = Buffer.alloc(0);
      const frames: Buffer[] = [];
      const finish = (): void => {
        req.destroy();
        resolve({ contentType: String(response.headers["content-type"]), frames });
      };
      response.on("data", (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
          const length = buffered.readUInt32BE(0);
          frames.push(buffered.subarray(4, 4 + length));
          buffered = buffered.subarray(4 + length);
          if (frames.length === count) return finish();
        }
      });
      response.on("end", () => finish());
    });
    req.on("error", (error) => (error.message.includes("socket hang up") ? undefined : reject(error)));
    req.end();
  });
}

/** A WatchEvent frame's type and (enveloped) object, decoded with the codec. */
function decodeFrame(frame: Buffer, codec = protobufCodec(ORCH_PROFILE)): { type: string; object: Record<string, unknown> } {
  // WatchEvent: type=1 (string), object=2 (RawExtension: raw=1). Lengths here stay below 2^14.
  let offset = 0;
  let type = "";
  let object: Record<string, unknown> = {};
  while (offset < frame.length) {
    const tag = frame[offset] ?? 0;
    const [length, size] = varint(frame, offset + 1);
    const value = frame.subarray(offset + 1 + size, offset + 1 + size + length);
    if (tag === 0x0a) type = value.toString();
    if (tag === 0x12) {
      const [inner, innerSize] = varint(value, 1);
      object = codec.decode(value.subarray(1 + innerSize, 1 + innerSize + inner));
    }
    offset += 1 + size + length;
  }
  return { type, object };
}

function varint(bytes: Buffer, offset: number): [number, number] {
  let value = 0;
  let shift = 0;
  let size = 0;
  for (;;) {
    const byte = bytes[offset + size] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    size++;
    shift += 7;
    if (byte < 0x80) return [value, size];
  }
}

describe("protobuf with kubectl 1.33 and 1.32 (orch profile)", () => {
  // A small event window, so that a watch from revision 1 has expired after the bulk creates below.
  const server = useTestServer({ watchCacheSize: 100 });
  const codec = protobufCodec(ORCH_PROFILE);

  for (const version of NEW_KUBECTLS) {
    describe(`kubectl ${version}`, () => {
      let kubectl: Kubectl;
      const ns = `pb-${version.replace(".", "-")}`;
      before(() => {
        kubectl = kubectlFor(server().server.kubeconfigPath, `${server().dataDir}/kubectl-${version}`, version);
      });

      it("create namespace, configmap, secret, deployment (protobuf bodies) and get them back as YAML", async () => {
        ok(await kubectl(["create", "namespace", ns]));
        ok(await kubectl(["create", "configmap", "demo", "-n", ns, "--from-literal=a=b"]));
        ok(await kubectl(["create", "secret", "generic", "creds", "-n", ns, "--from-literal=password=s3cr3t"]));
        ok(await kubectl(["create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=0"]));
        const cm = parse(ok(await kubectl(["get", "configmap", "demo", "-n", ns, "-o", "yaml"]))) as Record<string, unknown>;
        assert.deepEqual(cm["data"], { a: "b" });
        const meta = cm["metadata"] as Record<string, unknown>;
        // Go writes every non-pointer field, zeros too; none of them may reach the stored object.
        for (const zero of ["generateName", "selfLink", "generation", "deletionGracePeriodSeconds"]) assert.equal(meta[zero], undefined, zero);
        const secret = parse(ok(await kubectl(["get", "secret", "creds", "-n", ns, "-o", "yaml"]))) as { data: Record<string, string>; type: string };
        assert.equal(Buffer.from(secret.data["password"] ?? "", "base64").toString(), "s3cr3t");
        assert.equal(secret.type, "Opaque");
        const deployment = parse(ok(await kubectl(["get", "deployment", "web", "-n", ns, "-o", "yaml"]))) as { spec: Record<string, unknown> };
        assert.equal(deployment.spec["replicas"], 0, "a pointer field's zero is kept");
        assert.equal(deployment.spec["paused"], undefined, "a non-pointer omitempty zero is not");
        const namespace = json(await request(server().admin, "GET", `/api/v1/namespaces/${ns}`));
        assert.equal((namespace["status"] as Record<string, unknown>)["phase"], "Active");
      });

      it("get -w sees a change made while it watches", async () => {
        const watch = kubectl.spawn(["get", "configmaps", "-n", ns, "-w", "-o", "name"]);
        try {
          await waitFor(() => watch.stdout().includes("configmap/demo"), { timeoutMs: 10_000, what: "the watch to print the config map" });
          ok(await kubectl(["create", "configmap", "later", "-n", ns, "--from-literal=x=y"]));
          await waitFor(() => watch.stdout().includes("configmap/later"), { timeoutMs: 10_000, what: "the watch to print the config map" });
        } finally {
          await watch.stop();
        }
      });

      it("scale, label and delete answer in protobuf and take effect", async () => {
        ok(await kubectl(["scale", "deployment", "web", "-n", ns, "--replicas=3"]));
        ok(await kubectl(["label", "configmap", "demo", "-n", ns, "tier=web"]));
        const cm = json(await request(server().admin, "GET", `/api/v1/namespaces/${ns}/configmaps/demo`));
        assert.deepEqual((cm["metadata"] as Record<string, unknown>)["labels"], { tier: "web" });
        const deployment = json(await request(server().admin, "GET", `/apis/apps/v1/namespaces/${ns}/deployments/web`));
        assert.equal((deployment["spec"] as Record<string, unknown>)["replicas"], 3);
        ok(await kubectl(["delete", "configmap", "demo", "-n", ns]));
        assert.equal((await request(server().admin, "GET", `/api/v1/namespaces/${ns}/configmaps/demo`)).status, 404);
      });
    });
  }

  describe("raw protobuf requests", () => {
    const path = "/api/v1/namespaces/default/configmaps";

    it("GET in protobuf is the JSON object in kube's envelope; quality values pick the format", async () => {
      assert.equal((await request(server().admin, "POST", path, { body: configMap("pb-get", { k: "v" }, { app: "x" }), headers: AGENT })).status, 201);
      const asJson = json(await request(server().admin, "GET", `${path}/pb-get`));
      const got = await raw(server().admin, "GET", `${path}/pb-get`, { accept: `${ORCH_PB}, application/json` });
      assert.equal(got.status, 200);
      assert.equal(got.headers["content-type"], ORCH_PB);
      assert.deepEqual(got.body.subarray(0, 4), Buffer.from("k8s\0"));
      assert.deepEqual(codec.decode(got.body), asJson);
      const kubeSpelling = await raw(server().admin, "GET", `${path}/pb-get`, { accept: KUBE_PB });
      assert.equal(kubeSpelling.headers["content-type"], KUBE_PB, "answered in the spelling asked for");
      const preferJson = await raw(server().admin, "GET", `${path}/pb-get`, { accept: `${ORCH_PB};q=0.5, application/json` });
      assert.equal(preferJson.headers["content-type"], "application/json");
      const preferProtobuf = await raw(server().admin, "GET", `${path}/pb-get`, { accept: `application/json;q=0.8, ${ORCH_PB}` });
      assert.equal(preferProtobuf.headers["content-type"], ORCH_PB);
    });

    it("LIST in protobuf (cached, rv=0, and past the streaming threshold) holds the same items as JSON", async () => {
      for (let index = 0; index < 300; index++) {
        const created = await request(server().admin, "POST", "/api/v1/namespaces/default/configmaps", {
          body: configMap(`bulk-${index}`, { i: String(index) }),
          headers: AGENT,
        });
        assert.equal(created.status, 201);
      }
      for (const query of ["", "?resourceVersion=0", "?limit=10"]) {
        const listJson = json(await request(server().admin, "GET", `${path}${query}`));
        const listPb = await raw(server().admin, "GET", `${path}${query}`, { accept: ORCH_PB });
        assert.equal(listPb.status, 200);
        const decoded = codec.decode(listPb.body);
        assert.equal(decoded["kind"], "ConfigMapList");
        assert.deepEqual(decoded["metadata"], listJson["metadata"]);
        assert.deepEqual(decoded["items"], listJson["items"], `items of ${query}`);
      }
    });

    it("POST and PUT protobuf bodies; errors are protobuf Status; bad bodies are 400 and store nothing", async () => {
      const body = codec.encode(configMap("pb-post", { a: "1" }));
      const created = await raw(server().admin, "POST", path, { ...AGENT, "content-type": ORCH_PB, accept: `${ORCH_PB}, application/json` }, body);
      assert.equal(created.status, 201);
      const object = codec.decode(created.body);
      assert.deepEqual(object["data"], { a: "1" });
      const updated = await raw(
        server().admin,
        "PUT",
        `${path}/pb-post`,
        { "content-type": KUBE_PB, accept: "application/json" },
        codec.encode({ ...object, data: { a: "2" } }),
      );
      assert.equal(updated.status, 200);
      assert.deepEqual(JSON.parse(updated.body.toString())["data"], { a: "2" });

      const missing = await raw(server().admin, "GET", `${path}/nope`, { accept: `${ORCH_PB}, application/json` });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers["content-type"], ORCH_PB);
      const status = codec.decode(missing.body);
      assert.equal(status["kind"], "Status");
      assert.equal(status["reason"], "NotFound");
      assert.equal(status["code"], 404);

      const good = Buffer.from(codec.encode(configMap("pb-bad", { a: "1" })));
      const shape = codec.shapeOf("v1", "ConfigMap");
      assert.ok(shape !== undefined);
      const bad: readonly (readonly [string, Buffer, RegExp])[] = [
        ["wrong magic", Buffer.concat([Buffer.from("k9s\0"), good.subarray(4)]), /magic prefix/],
        ["truncated", good.subarray(0, good.length - 8), /truncated|remain/],
        [
          "an unknown field cut short",
          Buffer.from(encodeEnvelope("v1", "ConfigMap", Buffer.concat([encodeMessage(configMap("pb-bad"), shape), Buffer.from([0x7a, 0x05, 0x01])]))),
          /truncated/,
        ],
      ];
      for (const [name, bytes, message] of bad) {
        const result = await raw(server().admin, "POST", path, { "content-type": ORCH_PB, accept: "application/json" }, bytes);
        assert.equal(result.status, 400, name);
        const answer = JSON.parse(result.body.toString()) as { message: string };
        assert.match(answer.message, message, name);
      }
      assert.equal((await request(server().admin, "GET", `${path}/pb-bad`)).status, 404, "nothing stored");

      // A field this server's 1.30 messages lack (a newer client's, e.g. kubectl 1.33's PodStatus.observedGeneration) is skipped, as kube does.
      const newer = Buffer.from(
        encodeEnvelope("v1", "ConfigMap", Buffer.concat([encodeMessage(configMap("pb-newer", { a: "1" }), shape), Buffer.from([0x78, 0x01])])),
      );
      const newerCreated = await raw(server().admin, "POST", path, { "content-type": ORCH_PB, accept: "application/json" }, newer);
      assert.equal(newerCreated.status, 201, newerCreated.body.toString());
      assert.deepEqual(JSON.parse(newerCreated.body.toString())["data"], { a: "1" });
    });

    it("a CustomResourceDefinition (a built-in kind, JSONSchemaProps inside) goes both ways in protobuf", async () => {
      const crd = {
        apiVersion: "apiextensions.orch.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: "object",
                  properties: {
                    spec: { type: "object", additionalProperties: { type: "string" } },
                    tags: { type: "array", items: { type: "string" }, "x-orch-list-type": "set" },
                    status: { type: "object", "x-orch-preserve-unknown-fields": true },
                  },
                },
              },
            },
          ],
        },
      };
      const path = "/apis/apiextensions.orch.io/v1/customresourcedefinitions";
      const created = await raw(server().admin, "POST", path, { ...AGENT, "content-type": ORCH_PB, accept: ORCH_PB }, codec.encode(crd));
      assert.equal(created.status, 201, created.body.toString());
      const asJson = json(await request(server().admin, "GET", `${path}/widgets.example.com`));
      assert.deepEqual(codec.decode(created.body)["spec"], asJson["spec"]);
      const properties = (asJson["spec"] as { versions: { schema: { openAPIV3Schema: { properties: Record<string, Record<string, unknown>> } } }[] })
        .versions[0]?.schema.openAPIV3Schema.properties;
      assert.deepEqual(properties?.["spec"]?.["additionalProperties"], { type: "string" }, "JSONSchemaPropsOrBool as a schema");
      assert.deepEqual(properties?.["tags"], { type: "array", items: { type: "string" }, "x-orch-list-type": "set" }, "JSONSchemaPropsOrArray as one schema");
      assert.equal(properties?.["status"]?.["x-orch-preserve-unknown-fields"], true);
    });

    it("watch in protobuf: frames of ADDED, MODIFIED, DELETED, BOOKMARK from the cache, and an ERROR for an expired version", async () => {
      const start = json(await request(server().admin, "GET", path));
      const rv = String((start["metadata"] as Record<string, unknown>)["resourceVersion"]);
      const stream = watchFrames(server().admin, `${path}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=2`, 4);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await request(server().admin, "POST", path, { body: configMap("pb-watch", { a: "1" }), headers: AGENT });
      await request(server().admin, "PATCH", `${path}/pb-watch`, {
        body: { data: { a: "2" } },
        headers: { ...AGENT, "content-type": "application/merge-patch+json" },
      });
      await request(server().admin, "DELETE", `${path}/pb-watch`);
      const { contentType, frames } = await stream;
      assert.equal(contentType, `${ORCH_PB};stream=watch`);
      const events = frames.map((frame) => decodeFrame(frame));
      assert.deepEqual(
        events.map((event) => event.type),
        ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"],
        JSON.stringify(events[0]?.object),
      );
      assert.deepEqual(events[1]?.object["data"], { a: "2" });
      assert.equal((events[0]?.object["metadata"] as Record<string, unknown>)["name"], "pb-watch");
      const expired = await watchFrames(server().admin, `${path}?watch=1&resourceVersion=1`, 1);
      const error = decodeFrame(expired.frames[0] ?? Buffer.alloc(0));
      assert.equal(error.type, "ERROR");
      assert.equal(error.object["kind"], "Status");
      assert.equal(error.object["code"], 410);
    });
  });
});

describe("protobuf without the watch cache, and kubectl 1.33 under --compat kubernetes", () => {
  const server = useTestServer({ profile: KUBERNETES_PROFILE, watchCache: false });
  const codec = protobufCodec(KUBERNETES_PROFILE);
  let kubectl: Kubectl;
  before(() => {
    kubectl = kubectlFor(server().server.kubeconfigPath, `${server().dataDir}/kubectl`, NEW_KUBECTLS[0]);
  });

  it("a plain (storage) watch streams the same frames", async () => {
    const path = "/api/v1/namespaces/default/configmaps";
    const start = json(await request(server().admin, "GET", path));
    const rv = String((start["metadata"] as Record<string, unknown>)["resourceVersion"]);
    const stream = watchFrames(server().admin, `${path}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=2`, 3, KUBE_PB);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await request(server().admin, "POST", path, { body: configMap("plain", { a: "1" }) });
    await request(server().admin, "DELETE", `${path}/plain`);
    const { contentType, frames } = await stream;
    assert.equal(contentType, `${KUBE_PB};stream=watch`);
    assert.deepEqual(
      frames.map((frame) => decodeFrame(frame, codec).type),
      ["ADDED", "DELETED", "BOOKMARK"],
    );
  });

  it("auth can-i, auth whoami, create role / rolebinding / clusterrole / priorityclass / ingress / serviceaccount / token", async () => {
    assert.equal(ok(await kubectl(["auth", "can-i", "create", "pods"])).trim(), "yes");
    assert.match(ok(await kubectl(["auth", "whoami"])), /kubernetes-admin|system:masters/);
    ok(await kubectl(["create", "role", "reader", "--verb=get,list", "--resource=pods"]));
    ok(await kubectl(["create", "rolebinding", "reader", "--role=reader", "--user=jane"]));
    ok(await kubectl(["create", "clusterrole", "viewer", "--verb=get", "--resource=nodes"]));
    ok(await kubectl(["create", "priorityclass", "high", "--value=1000"]));
    ok(await kubectl(["create", "ingress", "web", "--rule=example.com/=web:80"]));
    ok(await kubectl(["create", "serviceaccount", "robot"]));
    assert.match(ok(await kubectl(["create", "token", "robot"])), /^ey/);
    assert.equal(ok(await kubectl(["auth", "can-i", "list", "pods", "--as=jane"])).trim(), "yes");
    const role = parse(ok(await kubectl(["get", "role", "reader", "-o", "yaml"]))) as { rules: unknown[] };
    assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }]);
    const priority = parse(ok(await kubectl(["get", "priorityclass", "high", "-o", "yaml"]))) as Record<string, unknown>;
    assert.equal(priority["value"], 1000);
  });
});
