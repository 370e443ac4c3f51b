import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../profile.js";
import { builtinProtoMessages } from "../proto/fields/index.js";
import { builtinCatalogue } from "./catalogue.js";
import { ALWAYS_WRITTEN, INLINE_TYPES, OMITEMPTY_CHECKED } from "./go-zeros.js";
import type { SchemaNode } from "./node.js";

type Json = Record<string, unknown>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const MERGE = { "content-type": "application/merge-patch+json" };
const STRATEGIC = { "content-type": "application/strategic-merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };

const deployment = (name: string, env: Json[]): Json => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 0,
    paused: false,
    selector: { matchLabels: { app: "z" } },
    template: {
      metadata: { labels: { app: "z" } },
      spec: {
        containers: [{ name: "c", image: "nginx", env, stdin: false, livenessProbe: { periodSeconds: 0, initialDelaySeconds: 0, tcpSocket: { port: 80 } } }],
      },
    },
  },
});

const containerOf = (object: Json): Json => ((((object["spec"] as Json)["template"] as Json)["spec"] as Json)["containers"] as Json[])[0] as Json;

describe("Go zero values on the JSON path (go-zeros.ts)", () => {
  it("names definitions the catalogue has and Go types the presence table knows", () => {
    const messages = builtinProtoMessages();
    for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
      const catalogue = builtinCatalogue(profile);
      const definitions = catalogue.definitions;
      const inline = new Set<string>();
      for (const [id, paths] of INLINE_TYPES) {
        const definition = definitions.get(id);
        assert.ok(definition !== undefined, `${id}: no such definition`);
        for (const [path, goType] of paths) {
          inline.add(goType);
          let node: SchemaNode | undefined = catalogue.resolve(definition);
          let last: SchemaNode | undefined;
          for (const segment of path.split(".")) {
            last = node?.properties?.[segment.replace(/\[\]$/, "")];
            if (segment.endsWith("[]")) last = last === undefined ? undefined : catalogue.resolve(last).items;
            node = last === undefined ? undefined : catalogue.resolve(last);
          }
          assert.equal(node?.type, "object", `${id}: ${path} is not an object`);
          assert.equal(last?.ref, undefined, `${id}: ${path} has a definition of its own`);
        }
      }
      for (const id of OMITEMPTY_CHECKED) {
        assert.ok(messages.has(id), `${id}: no such protobuf message`);
        if (!inline.has(id)) assert.ok(definitions.has(id), `${id}: no such definition`);
      }
      for (const id of ALWAYS_WRITTEN.keys()) assert.ok(definitions.has(id) || inline.has(id), `${id}: no such definition`);
    }
  });

  describe("every write path", () => {
    let server: Awaited<ReturnType<typeof inProcessServer>>;
    before(async () => {
      server = await inProcessServer({ profile: KUBERNETES_PROFILE });
    });
    after(async () => {
      await server.stop();
    });

    it("server-side apply owns the applied zeros, stores kube's object, and a second identical apply is a no-op", async () => {
      const body = JSON.stringify(deployment("applied", [{ name: "A", value: "" }]));
      const first = await server.call("PATCH", `${DEPLOYMENTS}/applied?fieldManager=me`, { body, headers: APPLY });
      assert.equal(first.status, 201, first.text);
      const container = containerOf(first.json);
      assert.deepEqual(container["env"], [{ name: "A" }]);
      assert.deepEqual(container["resources"], {});
      assert.equal(container["stdin"], undefined);
      assert.equal((container["livenessProbe"] as Json)["periodSeconds"], 10);
      assert.equal((first.json["spec"] as Json)["replicas"], 0);
      // kube's field manager records the applied configuration, zeros included.
      const managed = JSON.stringify((first.json["metadata"] as Json)["managedFields"]);
      for (const field of ['"f:value"', '"f:stdin"', '"f:paused"', '"f:initialDelaySeconds"']) assert.ok(managed.includes(field), `${field} owned: ${managed}`);
      const version = (first.json["metadata"] as Json)["resourceVersion"];
      // A second later, so that a rewritten managedFields time would show.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const second = await server.call("PATCH", `${DEPLOYMENTS}/applied?fieldManager=me`, { body, headers: APPLY });
      assert.equal(second.status, 200, second.text);
      assert.equal((second.json["metadata"] as Json)["resourceVersion"], version, "no-op");
      assert.deepEqual((second.json["metadata"] as Json)["managedFields"], (first.json["metadata"] as Json)["managedFields"]);
    });

    it("create, update and merge, strategic and JSON patches drop the zeros; a PUT of the same object is a no-op", async () => {
      const created = await server.call("POST", DEPLOYMENTS, { body: deployment("patched", [{ name: "A", value: "x" }]) });
      assert.equal(created.status, 201, created.text);
      assert.equal((created.json["spec"] as Json)["paused"], undefined);
      const patches: [Record<string, string>, unknown][] = [
        [MERGE, { spec: { minReadySeconds: 0, template: { spec: { hostNetwork: false } } } }],
        [STRATEGIC, { spec: { template: { spec: { containers: [{ name: "c", env: [{ name: "A", value: "" }], workingDir: "" }] } } } }],
        [JSON_PATCH, [{ op: "add", path: "/spec/template/spec/containers/0/tty", value: false }]],
      ];
      let last = created.json;
      for (const [headers, patch] of patches) {
        const answer = await server.call("PATCH", `${DEPLOYMENTS}/patched`, { body: JSON.stringify(patch), headers });
        assert.equal(answer.status, 200, answer.text);
        last = answer.json;
      }
      const spec = last["spec"] as Json;
      assert.equal(spec["minReadySeconds"], undefined);
      assert.equal(((spec["template"] as Json)["spec"] as Json)["hostNetwork"], undefined);
      const container = containerOf(last);
      assert.deepEqual(container["env"], [{ name: "A" }]);
      for (const gone of ["workingDir", "tty"]) assert.equal(container[gone], undefined, gone);
      // The same content sent again (zeros and all, keys in another order) writes nothing.
      const version = (last["metadata"] as Json)["resourceVersion"];
      const again = deployment("patched", [{ name: "A", value: "" }]);
      (again["metadata"] as Json)["resourceVersion"] = version;
      const put = await server.call("PUT", `${DEPLOYMENTS}/patched`, { body: { ...again, spec: { ...(again["spec"] as Json), minReadySeconds: 0 } } });
      assert.equal(put.status, 200, put.text);
      assert.equal((put.json["metadata"] as Json)["resourceVersion"], version, "no-op");
    });

    it("an embedded ObjectMeta is written with creationTimestamp: null (pod, job and claim templates), owned by no manager; a claim template starts Pending", async () => {
      const created = await server.call("POST", DEPLOYMENTS, { body: deployment("stamped", []) });
      assert.equal(created.status, 201, created.text);
      const template = (created.json["spec"] as Json)["template"] as Json;
      assert.deepEqual(template["metadata"], { creationTimestamp: null, labels: { app: "z" } });
      assert.ok(!JSON.stringify((created.json["metadata"] as Json)["managedFields"]).includes("creationTimestamp"));
      const podSpec = { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" };
      const cronJob = {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "cj" },
        spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: podSpec } } } },
      };
      const applied = await server.call("PATCH", "/apis/batch/v1/namespaces/default/cronjobs/cj?fieldManager=me", {
        body: JSON.stringify(cronJob),
        headers: APPLY,
      });
      assert.equal(applied.status, 201, applied.text);
      const jobTemplate = (applied.json["spec"] as Json)["jobTemplate"] as Json;
      assert.deepEqual(jobTemplate["metadata"], { creationTimestamp: null });
      assert.deepEqual(((jobTemplate["spec"] as Json)["template"] as Json)["metadata"], { creationTimestamp: null });
      assert.ok(!JSON.stringify((applied.json["metadata"] as Json)["managedFields"]).includes("creationTimestamp"));
      const again = await server.call("PATCH", "/apis/batch/v1/namespaces/default/cronjobs/cj?fieldManager=me", {
        body: JSON.stringify(cronJob),
        headers: APPLY,
      });
      assert.equal((again.json["metadata"] as Json)["resourceVersion"], (applied.json["metadata"] as Json)["resourceVersion"], "no-op");
      const claim = { metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
      const statefulSet = {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "web" },
        spec: {
          selector: { matchLabels: { app: "w" } },
          serviceName: "w",
          template: { metadata: { labels: { app: "w" } }, spec: podSpec },
          volumeClaimTemplates: [claim],
        },
      };
      const sts = await server.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", {
        body: { ...statefulSet, spec: { ...statefulSet.spec, template: { ...statefulSet.spec.template, spec: { containers: podSpec.containers } } } },
      });
      assert.equal(sts.status, 201, sts.text);
      const [template0] = (sts.json["spec"] as Json)["volumeClaimTemplates"] as Json[];
      assert.deepEqual(template0?.["metadata"], { creationTimestamp: null, name: "www" });
      assert.deepEqual(template0?.["status"], { phase: "Pending" });
      const pod = await server.call("POST", "/api/v1/namespaces/default/pods", {
        body: { metadata: { name: "top" }, spec: { containers: podSpec.containers } },
      });
      assert.equal(typeof (pod.json["metadata"] as Json)["creationTimestamp"], "string");
    });

    it('a downward-API resourceFieldRef without divisor reads back divisor "0" (a non-pointer Quantity), in env and in volumes', async () => {
      const ref = { containerName: "c", resource: "limits.cpu" };
      const pod = {
        metadata: { name: "dapi" },
        spec: {
          containers: [{ name: "c", image: "busybox", env: [{ name: "CPU", valueFrom: { resourceFieldRef: ref } }] }],
          volumes: [
            {
              name: "podinfo",
              downwardAPI: {
                items: [
                  { path: "cpu", resourceFieldRef: ref },
                  { path: "m", resourceFieldRef: { ...ref, divisor: "1m" } },
                ],
              },
            },
          ],
        },
      };
      const created = await server.call("POST", "/api/v1/namespaces/default/pods", { body: pod });
      assert.equal(created.status, 201, created.text);
      const spec = created.json["spec"] as Json;
      const env = (((spec["containers"] as Json[])[0] as Json)["env"] as Json[])[0] as Json;
      assert.deepEqual((env["valueFrom"] as Json)["resourceFieldRef"], { ...ref, divisor: "0" });
      const volume = (spec["volumes"] as Json[]).find((item) => item["name"] === "podinfo") as Json;
      const items = (volume["downwardAPI"] as Json)["items"] as Json[];
      assert.deepEqual(
        items.map((item) => (item["resourceFieldRef"] as Json)["divisor"]),
        ["0", "1m"],
      );
    });
  });
});
