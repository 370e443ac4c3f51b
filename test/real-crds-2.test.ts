// The second batch of real operators' CustomResourceDefinitions (test/fixtures/real-crds/, each with
// its source and commit, unedited): cert-manager's Certificate, prometheus-operator's PrometheusRule,
// Velero's Backup (`nullable` fields) and Gateway API's standard GRPCRoute (dense CEL: escaped
// `__namespace__`, `has(self[0].matches)`), with their projects' documented samples. Applied with the oldest and the newest kubectl; the
// definitions must be accepted and established, the samples stored with the schemas' defaults and
// shown with the declared printer columns, and the rules must refuse what they were written to refuse.
// One server per profile: the k8s.io-group GRPCRoute runs under `--compat kubernetes` only.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { kubectlPairFor, ok, refused, type Kubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { definitionFileFor, realCrdFixture } from "./helpers/real-crds.js";

const fixture = realCrdFixture;

type Json = Record<string, unknown>;

interface Definition {
  readonly file: string;
  readonly name: string;
  readonly samples: string | undefined;
}

/** The definitions and samples every profile serves (groups outside k8s.io). */
const COMMON: readonly Definition[] = [
  { file: "cert-manager-certificates.yaml", name: "certificates.cert-manager.io", samples: "cert-manager-certificates-samples.yaml" },
  {
    file: "prometheus-operator-prometheusrules.yaml",
    name: "prometheusrules.monitoring.coreos.com",
    samples: "prometheus-operator-prometheusrules-samples.yaml",
  },
  // Its documented sample names fields this (older) definition lacks: applied on its own, below.
  { file: "velero-backups.yaml", name: "backups.velero.io", samples: undefined },
];
const GATEWAY: Definition = {
  file: "gateway-api-grpcroutes.yaml",
  name: "grpcroutes.gateway.networking.k8s.io",
  samples: "gateway-api-grpcroutes-samples.yaml",
};

function suite(profile: Profile, definitions: readonly Definition[]): void {
  describe(`real operators' CRDs, second batch (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });
    let oldest: Kubectl;
    let newest: Kubectl;
    let scratch: (name: string, text: string) => string;
    before(() => {
      ({ oldest, newest, scratch } = kubectlPairFor(server().server.kubeconfigPath, server().dataDir));
    });

    const definition = (file: string): string => definitionFileFor(profile, scratch)(file);

    it("kubectl (oldest) applies each definition, it becomes Established, and server-side apply (newest) accepts it again", async () => {
      // One kubectl run per step: every file at once, as an install's `kubectl apply -f dir/` does.
      const files = (names: readonly string[]): string[] => names.flatMap((name) => ["-f", name]);
      ok(await oldest(["apply", ...files(definitions.map(({ file }) => definition(file)))]));
      ok(await oldest(["wait", "--for", "condition=Established", ...definitions.map(({ name }) => `crd/${name}`), "--timeout", "20s"]));
      const applied = ok(await newest(["apply", "--server-side", ...files(definitions.map(({ file }) => definition(file)))]));
      assert.equal(applied.match(/serverside-applied/g)?.length, definitions.length, applied);
      ok(await newest(["apply", ...files(definitions.flatMap(({ samples }) => (samples === undefined ? [] : [fixture(samples)])))]));
    });

    it("the samples read back as written, with printer columns as declared (Age only where none are)", async () => {
      const certificate = JSON.parse(ok(await newest(["get", "certificate", "-n", "sandbox", "example-com", "-o", "json"]))) as Json;
      const spec = certificate["spec"] as Json;
      assert.deepEqual(spec["privateKey"], { algorithm: "RSA", encoding: "PKCS1", size: 2048 });
      assert.deepEqual(spec["usages"], ["server auth", "client auth"]);
      assert.equal(spec["isCA"], false);
      assert.match(
        ok(await oldest(["get", "certs", "-n", "sandbox", "-o", "wide"])),
        /^NAME\s+READY\s+SECRET\s+ISSUER\s+STATUS\s+AGE\nexample-com\s+example-com-tls\s+ca-issuer\s+\S+\n$/,
      );
      // PrometheusRule declares no printer columns: kube serves Name and Age.
      assert.match(ok(await oldest(["get", "promrule"])), /^NAME\s+AGE\nprometheus-example-rules\s+\S+\n$/);
      assert.match(ok(await newest(["explain", "certificate.spec.privateKey.algorithm"])), /ENUM:\n\s+RSA\n\s+ECDSA\n\s+Ed25519\n/);
    });

    it("status writes go through the status sub-resource and show in the columns; bad status is refused with kube's messages", async () => {
      const condition = {
        type: "Ready",
        status: "True",
        reason: "Ready",
        message: "Certificate is up to date and has not expired",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      };
      ok(
        await newest([
          "patch",
          "certificate",
          "example-com",
          "-n",
          "sandbox",
          "--subresource=status",
          "--type=merge",
          "-p",
          JSON.stringify({ status: { conditions: [condition], revision: 1 } }),
        ]),
      );
      assert.match(
        ok(await oldest(["get", "cert", "-n", "sandbox", "-o", "wide"])),
        /\nexample-com\s+True\s+example-com-tls\s+ca-issuer\s+Certificate is up to date and has not expired\s+\S+\n$/,
      );
      const bad = {
        status: {
          conditions: [
            { type: "Ready", status: "true" },
            { type: "Ready", status: "False" },
          ],
          notAfter: "tomorrow",
        },
      };
      refused(
        await newest(["patch", "certificate", "example-com", "-n", "sandbox", "--subresource=status", "--type=merge", "-p", JSON.stringify(bad)]),
        'status.conditions[0].status: Unsupported value: "true": supported values: "True", "False", "Unknown"',
        'status.conditions[1]: Duplicate value: map[string]interface {}{"type":"Ready"}',
        'status.notAfter: Invalid value: "tomorrow": status.notAfter in body must be of type date-time: "tomorrow"',
      );
    });

    it("schema validation refuses what kube's does (enums, list-map keys, patterns; RE2's (?i) accepted)", async () => {
      const rules = scratch(
        "bad-rules.yaml",
        `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: bad}
spec:
  groups:
  - {name: a, interval: 5x, partial_response_strategy: ABORT, rules: [{alert: A, expr: 1}]}
  - {name: a, rules: [{record: r}]}
`,
      );
      refused(
        await newest(["create", "-f", rules]),
        "spec.groups[0].interval: Invalid value: \"5x\": spec.groups[0].interval in body should match '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'",
        "spec.groups[1].rules[0].expr: Required value",
        'spec.groups[1]: Duplicate value: map[string]interface {}{"name":"a"}',
      );
      assert.doesNotMatch((await newest(["create", "-f", rules])).stderr, /partial_response_strategy/);
      const certificate = scratch(
        "bad-certificate.json",
        JSON.stringify({
          apiVersion: "cert-manager.io/v1",
          kind: "Certificate",
          metadata: { name: "bad", namespace: "sandbox" },
          spec: { secretName: "x", issuerRef: { name: "ca" }, privateKey: { algorithm: "DSA" }, usages: ["server auth", "nope"] },
        }),
      );
      refused(
        await oldest(["create", "-f", certificate]),
        'spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"',
        'spec.usages[1]: Unsupported value: "nope": supported values: "signing", "digital signature"',
      );
      ok(await newest(["delete", "certificate", "-n", "sandbox", "example-com"]));
      ok(await newest(["delete", "promrule", "prometheus-example-rules"]));
    });

    it("Velero's documented Backup: Strict refuses its unknown fields as kube's decoder does; Warn prunes them; nulls are kept only where nullable", async () => {
      const sample = fixture("velero-backups-samples.yaml");
      refused(
        await newest(["apply", "-f", sample]),
        'Backup in version "v1" cannot be handled as a Backup: strict decoding error: unknown field "spec.csiSnapshotTimeout", unknown field "spec.defaultVolumesToFsBackup", unknown field "spec.orLabelSelectors"',
      );
      const warned = await newest(["apply", "--validate=warn", "-f", sample]);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(warned.stderr, /Warning: unknown field "spec\.orLabelSelectors"/);
      const backup = JSON.parse(ok(await oldest(["get", "backup", "-n", "velero", "a", "-o", "json"]))) as Json;
      const spec = backup["spec"] as Json;
      assert.equal(spec["orLabelSelectors"], undefined);
      assert.deepEqual(spec["orderedResources"], {
        pods: "mysql/mysql-cluster-replica-0,mysql/mysql-cluster-replica-1,mysql/mysql-cluster-source-0",
        persistentvolumes: "pvc-87ae0832-18fd-4f40-a2a4-5ed4242680c4,pvc-63be1bb0-90f5-4629-a7db-b8ce61ee29b3",
      });
      assert.match(ok(await oldest(["get", "backups", "-n", "velero"])), /^NAME\s+AGE\na\s+\S+\n$/);
      // A client that writes JSON nulls (a Go struct without omitempty, the Python client): kube's
      // decoder drops the nulls of non-nullable fields without a default and keeps the nullable ones.
      const nulls = {
        apiVersion: "velero.io/v1",
        kind: "Backup",
        metadata: { name: "nulls", namespace: "velero" },
        spec: {
          ttl: null,
          volumeSnapshotLocations: null,
          includeClusterResources: null,
          includedNamespaces: null,
          hooks: { resources: [{ name: "h", pre: null, post: null, labelSelector: null }] },
        },
        status: { phase: null, expiration: null },
      };
      const created = JSON.parse(
        ok(await newest(["create", "--raw", "/apis/velero.io/v1/namespaces/velero/backups", "-f", scratch("nulls.json", JSON.stringify(nulls))])),
      ) as Json;
      assert.deepEqual(created["spec"], {
        includeClusterResources: null,
        includedNamespaces: null,
        hooks: { resources: [{ name: "h", labelSelector: null }] },
      });
      assert.deepEqual(created["status"], { expiration: null });
      ok(await newest(["delete", "backups", "-n", "velero", "a", "nulls"]));
    });

    if (definitions.includes(GATEWAY))
      it("GRPCRoute: samples stored with defaults; the parentRefs rules (__namespace__) and the total-matches rule (has(self[i].matches)) refuse as written", async () => {
        const route = JSON.parse(ok(await newest(["get", "grpcroute", "foo-route", "-o", "json"]))) as Json;
        const spec = route["spec"] as Json;
        assert.deepEqual((spec["parentRefs"] as Json[])[0], { group: "gateway.networking.k8s.io", kind: "Gateway", name: "example-gateway" });
        const rules = spec["rules"] as Json[];
        assert.deepEqual((rules[0]?.["backendRefs"] as Json[])[0], { group: "", kind: "Service", name: "foo-svc", port: 50051, weight: 1 });
        assert.deepEqual((rules[0]?.["matches"] as Json[])[0], { method: { method: "Login", service: "com.example.User", type: "Exact" } });
        assert.match(
          ok(await oldest(["get", "grpcroutes"])),
          /^NAME\s+HOSTNAMES\s+AGE\nbar-route\s+\["bar\.example\.com"\]\s+\S+\nfoo-route\s+\["foo\.example\.com"\]\s+\S+\n$/,
        );
        const parents = scratch(
          "bad-parents.yaml",
          `apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: bad-parents}
spec:
  parentRefs:
  - {name: gw, namespace: ns1, sectionName: a}
  - {name: gw, namespace: ns1}
  - {name: gw, namespace: ns2}
  rules:
  - matches:
    - method: {service: com.example-bad}
    backendRefs:
    - name: foo-svc
      filters:
      - {type: RequestMirror}
`,
        );
        refused(
          await newest(["create", "-f", parents]),
          'spec.parentRefs: Invalid value: "array": sectionName must be specified when parentRefs includes 2 or more references to the same parent',
          'spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference',
          'spec.rules[0].backendRefs[0].filters[0]: Invalid value: "object": filter.requestMirror must be specified for RequestMirror filter.type',
          'spec.rules[0].matches[0].method: Invalid value: "object": service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)',
        );
        // Distinct namespaces are distinct parents: no refusal.
        const distinct = {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "GRPCRoute",
          metadata: { name: "two-parents" },
          spec: {
            parentRefs: [
              { name: "gw", namespace: "a" },
              { name: "gw", namespace: "b" },
            ],
          },
        };
        ok(await newest(["create", "-f", scratch("two-parents.json", JSON.stringify(distinct))]));
        const matches = (count: number): Json[] => Array.from({ length: count }, () => ({ method: { service: "s" } }));
        const crowded = {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "GRPCRoute",
          metadata: { name: "crowded" },
          spec: { rules: [{ matches: matches(64) }, { matches: matches(64) }, { matches: matches(1) }] },
        };
        refused(
          await newest(["create", "-f", scratch("crowded.json", JSON.stringify(crowded))]),
          'spec.rules: Invalid value: "array": While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128',
        );
        ok(await newest(["delete", "grpcroute", "bar-route", "foo-route", "two-parents"]));
      });
  });
}

suite(KUBERNETES_PROFILE, [...COMMON, GATEWAY]);
suite(ORCH_PROFILE, COMMON);
