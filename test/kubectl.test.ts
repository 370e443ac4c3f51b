// Real kubectl, the oldest and the newest installed, against an in-process server with the
// durable (sqlite) store.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { parse } from "yaml";
import { kubectlFor, parseTable, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface ConfigMapLike {
  kind: string;
  metadata: ObjectMeta;
  data?: Record<string, string>;
}
interface ListLike {
  kind: string;
  items: ConfigMapLike[];
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

for (const release of resolveKubectls(["oldest", "newest"])) {
  describe(`kubectl ${release.version} against the server (sqlite backend)`, () => {
    const server = useTestServer({ storageBackend: "sqlite" });
    let kubectl: Kubectl;
    let manifestCount = 0;

    /** Writes a manifest to a temp file in the data dir and returns its path. */
    function manifest(value: unknown): string {
      const path = join(server().dataDir, `manifest-${++manifestCount}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    }

    async function getConfigMap(name: string, namespace = "default"): Promise<ConfigMapLike> {
      return JSON.parse(ok(await kubectl(["get", "configmap", name, "-n", namespace, "-o", "json"]))) as ConfigMapLike;
    }

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
    });

    it("get namespaces lists the four built-in namespaces", async () => {
      const rows = parseTable(ok(await kubectl(["get", "namespaces"])));
      const names = rows.map((row) => row["NAME"]);
      for (const name of ["default", "orch-system", "orch-public", "orch-node-lease"])
        assert.ok(names.includes(name), `missing ${name} in ${names.join(", ")}`);
    });

    it("creates a configmap and shows it as YAML with server-set metadata", async () => {
      assert.match(ok(await kubectl(["create", "configmap", "demo", "--from-literal=a=b"])), /configmap\/demo created/);
      const object = parse(ok(await kubectl(["get", "configmap", "demo", "-o", "yaml"]))) as ConfigMapLike;
      assert.equal(object.kind, "ConfigMap");
      assert.equal(object.data?.["a"], "b");
      assert.equal(object.metadata.namespace, "default");
      assert.match(object.metadata.resourceVersion ?? "", /^\d+$/);
      assert.match(object.metadata.uid ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.match(object.metadata.creationTimestamp ?? "", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    });

    it("deletes a configmap, after which get fails with NotFound", async () => {
      assert.match(ok(await kubectl(["delete", "configmap", "demo"])), /configmap "demo" deleted/);
      const result = await kubectl(["get", "configmap", "demo"]);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /NotFound/);
    });

    it("client-side apply creates, then updates, recording last-applied-configuration", async () => {
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { x: "1", y: "2" } };
      assert.match(ok(await kubectl(["apply", "-f", manifest(cm)])), /configmap\/applied created/);
      assert.match(ok(await kubectl(["apply", "-f", manifest({ ...cm, data: { x: "10", y: "2" } })])), /configmap\/applied configured/);
      const object = await getConfigMap("applied");
      assert.deepEqual(object.data, { x: "10", y: "2" });
      const lastApplied = object.metadata.annotations?.[LAST_APPLIED];
      assert.ok(lastApplied !== undefined, "last-applied-configuration annotation missing");
      assert.deepEqual((JSON.parse(lastApplied) as ConfigMapLike).data, { x: "10", y: "2" });
    });

    it("client-side apply removes a key dropped from the manifest", async () => {
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { x: "10" } };
      ok(await kubectl(["apply", "-f", manifest(cm)]));
      const object = await getConfigMap("applied");
      assert.deepEqual(object.data, { x: "10" });
    });

    it("patches with --type merge, --type json and the default strategic merge", async () => {
      ok(await kubectl(["create", "configmap", "patched", "--from-literal=keep=1", "--from-literal=drop=2"]));
      assert.match(ok(await kubectl(["patch", "configmap", "patched", "--type", "merge", "-p", '{"data":{"merged":"m","drop":null}}'])), /patched/);
      assert.deepEqual((await getConfigMap("patched")).data, { keep: "1", merged: "m" });
      ok(
        await kubectl([
          "patch",
          "configmap",
          "patched",
          "--type",
          "json",
          "-p",
          '[{"op":"add","path":"/data/json","value":"j"},{"op":"replace","path":"/data/keep","value":"one"}]',
        ]),
      );
      assert.deepEqual((await getConfigMap("patched")).data, { keep: "one", merged: "m", json: "j" });
      ok(await kubectl(["patch", "configmap", "patched", "-p", '{"data":{"strategic":"s"}}']));
      assert.deepEqual((await getConfigMap("patched")).data, { keep: "one", merged: "m", json: "j", strategic: "s" });
    });

    it("a failing json patch test op is rejected and changes nothing", async () => {
      const before = await getConfigMap("patched");
      const result = await kubectl([
        "patch",
        "configmap",
        "patched",
        "--type",
        "json",
        "-p",
        '[{"op":"test","path":"/data/keep","value":"wrong"},{"op":"add","path":"/data/x","value":"y"}]',
      ]);
      assert.notEqual(result.code, 0);
      const after = await getConfigMap("patched");
      assert.deepEqual(after.data, before.data);
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    });

    it("label adds a label that get -l selects by", async () => {
      ok(await kubectl(["create", "configmap", "web-a"]));
      ok(await kubectl(["create", "configmap", "web-b"]));
      assert.match(ok(await kubectl(["label", "configmap", "web-a", "tier=web"])), /configmap\/web-a labeled/);
      assert.equal(ok(await kubectl(["get", "configmap", "-l", "tier=web", "-o", "name"])).trim(), "configmap/web-a");
      const notWeb = ok(await kubectl(["get", "configmap", "-l", "tier!=web", "-o", "name"]))
        .trim()
        .split("\n");
      assert.ok(notWeb.includes("configmap/web-b") && !notWeb.includes("configmap/web-a"), notWeb.join(", "));
    });

    it("a label selector that does not parse is kube's 400 text; so is a field selector without an operator", async () => {
      const unclosed = await kubectl(["get", "configmap", "-l", "tier in (web"]);
      assert.notEqual(unclosed.code, 0);
      assert.match(unclosed.stderr, /Error from server \(BadRequest\): .*: unable to parse requirement: found '', expected: ',' or '\)'\n$/);
      const trailing = await kubectl(["get", "configmap", "-l", "tier=web,"]);
      assert.match(trailing.stderr, /: found '', expected: identifier after ','\n$/);
      const field = await kubectl(["get", "configmap", "--field-selector", "metadata.name=a,b"]);
      assert.match(field.stderr, /: invalid selector: 'metadata.name=a,b'; can't understand 'b'\n$/);
    });

    it("get -o json prints a List of the configmaps", async () => {
      const list = JSON.parse(ok(await kubectl(["get", "configmap", "-o", "json"]))) as ListLike;
      assert.equal(list.kind, "List");
      const names = list.items.map((item) => item.metadata.name);
      for (const name of ["applied", "patched", "web-a", "web-b"]) assert.ok(names.includes(name), `missing ${name}`);
      for (const item of list.items) assert.equal(item.kind, "ConfigMap");
    });

    it("api-resources lists configmaps (short name cm, namespaced) and namespaces (cluster-scoped)", async () => {
      const rows = parseTable(ok(await kubectl(["api-resources"])));
      const configmaps = rows.find((row) => row["NAME"] === "configmaps");
      assert.deepEqual(configmaps, { NAME: "configmaps", SHORTNAMES: "cm", APIVERSION: "v1", NAMESPACED: "true", KIND: "ConfigMap" });
      const namespaces = rows.find((row) => row["NAME"] === "namespaces");
      assert.equal(namespaces?.["NAMESPACED"], "false");
      assert.equal(namespaces?.["KIND"], "Namespace");
    });

    it("api-versions includes v1", async () => {
      assert.ok(
        ok(await kubectl(["api-versions"]))
          .split("\n")
          .includes("v1"),
      );
    });

    it("deleting a namespace waits for it and removes its contents", async () => {
      ok(await kubectl(["create", "namespace", "t1"]));
      ok(await kubectl(["create", "configmap", "inside", "-n", "t1", "--from-literal=k=v"]));
      assert.match(ok(await kubectl(["delete", "namespace", "t1"])), /namespace "t1" deleted/);
      const gone = await kubectl(["get", "namespace", "t1"]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound/);
      const all = JSON.parse(ok(await kubectl(["get", "configmap", "--all-namespaces", "-o", "json"]))) as ListLike;
      assert.deepEqual(
        all.items.filter((item) => item.metadata.namespace === "t1"),
        [],
      );
      // A namespace of the same name starts empty (but for the root-CA config map the publisher adds to every namespace, as in kube).
      ok(await kubectl(["create", "namespace", "t1"]));
      const names = ok(await kubectl(["get", "configmap", "-n", "t1", "-o", "name"]))
        .split("\n")
        .filter((name) => name !== "" && !name.endsWith("-root-ca.crt"));
      assert.deepEqual(names, []);
    });

    it("refuses to delete the default namespace with Forbidden", async () => {
      const result = await kubectl(["delete", "namespace", "default", "--wait=false"]);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /Forbidden/);
      ok(await kubectl(["get", "namespace", "default"]));
    });

    it("creating in a missing namespace fails with NotFound", async () => {
      const result = await kubectl(["create", "-n", "missing", "-f", manifest({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } })]);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /NotFound.*namespaces "missing" not found/);
    });

    it("stores secret data base64-encoded", async () => {
      ok(await kubectl(["create", "secret", "generic", "s", "--from-literal=k=v"]));
      assert.equal(ok(await kubectl(["get", "secret", "s", "-o", "jsonpath={.data.k}"])), Buffer.from("v").toString("base64"));
    });

    it("create -f with metadata.generateName gets a generated name with the prefix", async () => {
      const path = manifest({ apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" }, data: { a: "b" } });
      const first = /configmap\/(\S+) created/.exec(ok(await kubectl(["create", "-f", path])))?.[1];
      const second = /configmap\/(\S+) created/.exec(ok(await kubectl(["create", "-f", path])))?.[1];
      assert.match(first ?? "", /^gen-[a-z0-9]{5}$/);
      assert.match(second ?? "", /^gen-[a-z0-9]{5}$/);
      assert.notEqual(first, second);
      assert.equal((await getConfigMap(first ?? "")).data?.["a"], "b");
    });

    it("get -w prints a configmap created after the watch started", async () => {
      ok(await kubectl(["create", "namespace", "watched"]));
      ok(await kubectl(["create", "configmap", "seed", "-n", "watched"]));
      const watch = kubectl.spawn(["get", "configmap", "-n", "watched", "-w", "--request-timeout=60s"]);
      try {
        // The initial list is printed first; anything created after it arrives through the watch.
        await waitFor(() => /^seed\s/m.test(watch.stdout()), {
          timeoutMs: 15_000,
          what: `kubectl -w to list seed (stdout: ${watch.stdout()} stderr: ${watch.stderr()})`,
        });
        ok(await kubectl(["create", "configmap", "late", "-n", "watched"]));
        await waitFor(() => /^late\s/m.test(watch.stdout()), { timeoutMs: 15_000, what: "kubectl -w to print the new configmap" });
        assert.equal(watch.child.exitCode, null, "the watch should still be running");
      } finally {
        await watch.stop();
      }
    });
  });
}
