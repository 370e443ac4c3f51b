// The third batch of real operators' CustomResourceDefinitions (test/fixtures/real-crds/, README.md there
// names each file's source): Gateway API's standard HTTPRoute (v1.3.0, the heaviest CEL user: filter and
// path rules, `exists_one`, `duration()`, list-map headers, nested defaults) and ReferenceGrant, and
// external-secrets' ExternalSecret (a deprecated v1alpha1 served beside the v1beta1 storage version,
// object defaults with nested defaults, min/maxProperties) and KEDA's ScaledObject (integer printer
// columns, string maps), with their projects' documented samples.
// Applied with the oldest and the newest kubectl; the definitions must be accepted, established,
// discovered and explained, the samples stored with exactly the schemas' defaults and shown with the
// declared printer columns, and bad objects refused with kube's 422 wording.
// One server per profile: the k8s.io-group Gateway API kinds run under `--compat kubernetes` only.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { kubectlPairFor, ok, refused, type Kubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { definitionFileFor, realCrdFixture } from "./helpers/real-crds.js";

const fixture = realCrdFixture;

type Json = Record<string, unknown>;

const json = (text: string): Json => JSON.parse(text) as Json;

interface Definition {
  readonly file: string;
  readonly name: string;
}

const EXTERNAL_SECRETS: Definition = { file: "external-secrets-externalsecrets.yaml", name: "externalsecrets.external-secrets.io" };
const KEDA: Definition = { file: "keda-scaledobjects.yaml", name: "scaledobjects.keda.sh" };
const GATEWAY: readonly Definition[] = [
  { file: "gateway-api-httproutes.yaml", name: "httproutes.gateway.networking.k8s.io" },
  { file: "gateway-api-referencegrants.yaml", name: "referencegrants.gateway.networking.k8s.io" },
  { file: "gateway-api-gatewayclasses.yaml", name: "gatewayclasses.gateway.networking.k8s.io" },
];

/** The line kube adds after a wrong-shape error when CEL rules were skipped; only schemas with rules have them. */
const RULES_SKIPPED = "some validation rules were not checked because the object was invalid";

function suite(profile: Profile, definitions: readonly Definition[]): void {
  const gateway = definitions.some((definition) => definition.name.endsWith(".gateway.networking.k8s.io"));
  describe(`real operators' CRDs, third batch (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });
    let oldest: Kubectl;
    let newest: Kubectl;
    let scratch: (name: string, text: string) => string;
    before(() => {
      ({ oldest, newest, scratch } = kubectlPairFor(server().server.kubeconfigPath, server().dataDir));
    });

    const definition = (file: string): string => definitionFileFor(profile, scratch)(file);
    const files = (names: readonly string[]): string[] => names.flatMap((name) => ["-f", name]);

    it("kubectl (oldest) applies the definitions, they become Established and discovered; server-side apply (newest) accepts them again; explain reads them", async () => {
      ok(await oldest(["apply", ...files(definitions.map(({ file }) => definition(file)))]));
      ok(await oldest(["wait", "--for", "condition=Established", ...definitions.map(({ name }) => `crd/${name}`), "--timeout", "20s"]));
      const applied = ok(await newest(["apply", "--server-side", ...files(definitions.map(({ file }) => definition(file)))]));
      assert.equal(applied.match(/serverside-applied/g)?.length, definitions.length, applied);
      const resources = ok(await oldest(["api-resources", "--api-group=external-secrets.io", "--no-headers"]));
      assert.match(resources, /^externalsecrets\s+es\s+external-secrets\.io\/v1beta1\s+true\s+ExternalSecret\n$/);
      const crd = json(ok(await newest(["get", "crd", EXTERNAL_SECRETS.name, "-o", "json"])));
      assert.deepEqual((crd["status"] as Json)["storedVersions"], ["v1beta1"]);
      assert.match(ok(await newest(["explain", "externalsecret.spec.target"])), /FIELD: target <Object>[\s\S]*deletionPolicy\t<string>/);
      // kubectl prints ENUM from 1.30 on; 1.27 reads the same field.
      assert.match(ok(await newest(["explain", "externalsecret.spec.data.remoteRef.decryptingStrategy.scheme"])), /ENUM:\n\s+None\n\s+RSA-OAEP\n/);
      assert.match(ok(await oldest(["explain", "externalsecret.spec.data.remoteRef.decryptingStrategy.scheme"])), /FIELD: scheme <string>/);
      if (gateway) {
        assert.match(
          ok(await newest(["api-resources", "--api-group=gateway.networking.k8s.io", "--no-headers"])),
          /httproutes\s+gateway\.networking\.k8s\.io\/v1\s+true\s+HTTPRoute\n[\s\S]*referencegrants\s+refgrant\s+gateway\.networking\.k8s\.io\/v1\s+true\s+ReferenceGrant\n/,
        );
        assert.match(ok(await newest(["explain", "httproute.spec.rules.matches.method"])), /ENUM:\n\s+GET\n\s+HEAD\n\s+POST\n/);
      }
    });

    it("ExternalSecret: the documented sample at v1alpha1 is refused as kube's decoder does (with the deprecation warning); at v1beta1 it is stored with exactly the schema's nested defaults", async () => {
      const result = await newest(["apply", "-f", fixture("external-secrets-externalsecrets-samples.yaml")]);
      refused(
        result,
        "Warning: external-secrets.io/v1alpha1 ExternalSecret is deprecated",
        'ExternalSecret in version "v1alpha1" cannot be handled as a ExternalSecret: strict decoding error: unknown field "spec.dataFrom[0].extract"',
      );
      assert.match(result.stdout, /externalsecret\.external-secrets\.io\/example created/);
      const spec = json(ok(await oldest(["get", "externalsecret", "example", "-o", "json"])))["spec"] as Json;
      // `decryptingStrategy` defaults to {scheme: None}, whose own properties then get theirs; `target` likewise.
      const defaulted = {
        conversionStrategy: "Default",
        decodingStrategy: "None",
        decryptingStrategy: { hash: "SHA1", privateKeyType: "PKCS8", scheme: "None" },
        metadataPolicy: "None",
      };
      assert.deepEqual(spec, {
        data: [
          {
            remoteRef: { ...defaulted, key: "provider-key", property: "provider-key-property", version: "provider-key-version" },
            secretKey: "secret-key-to-be-managed",
          },
        ],
        dataFrom: [{ extract: { ...defaulted, key: "provider-key" } }],
        refreshInterval: "1h",
        secretStoreRef: { kind: "SecretStore", name: "secretstore-sample" },
        target: { creationPolicy: "Owner", deletionPolicy: "Retain", name: "secret-to-be-created" },
      });
      assert.match(
        ok(await oldest(["get", "externalsecrets"])),
        /^NAME\s+STORETYPE\s+STORE\s+REFRESH INTERVAL\s+STATUS\s+READY\nexample\s+SecretStore\s+secretstore-sample\s+1h\s*\n$/,
      );
    });

    it("ExternalSecret read at the deprecated v1alpha1 (conversion None): the stored v1beta1 object with v1beta1's defaults, pruned by v1alpha1's schema, and none of v1alpha1's own defaults", async () => {
      const read = await newest(["get", "--raw", "/apis/external-secrets.io/v1alpha1/namespaces/default/externalsecrets/example"]);
      const spec = json(ok(read))["spec"] as Json;
      // kube decodes at the stored version (its defaults), then converts and prunes: `extract` is not
      // a v1alpha1 field, and v1alpha1's `dataFrom[].conversionStrategy: Default` is not applied.
      assert.deepEqual(spec["dataFrom"], [{}]);
      assert.deepEqual(spec["target"], { creationPolicy: "Owner", name: "secret-to-be-created" });
      assert.deepEqual((spec["data"] as Json[])[0], {
        remoteRef: { conversionStrategy: "Default", key: "provider-key", property: "provider-key-property", version: "provider-key-version" },
        secretKey: "secret-key-to-be-managed",
      });
    });

    it("ExternalSecret: schema refusals in kube's words (enums, patterns, min/maxProperties, required), and no 'rules were not checked' line where the schema has no rules", async () => {
      const bad = scratch(
        "bad-externalsecret.yaml",
        `apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata: {name: bad}
spec:
  secretStoreRef: {name: Store_1, kind: Vault}
  target: {creationPolicy: Adopt}
  data:
  - secretKey: "bad key"
    remoteRef: {key: k, decryptingStrategy: {scheme: RSA}}
    sourceRef: {}
  - secretKey: ok
    remoteRef: {}
    sourceRef: {storeRef: {name: a}, generatorRef: {kind: Password, name: p}}
  dataFrom:
  - rewrite: [{regexp: {source: a}}]
`,
      );
      const result = await newest(["create", "-f", bad]);
      refused(
        result,
        'The ExternalSecret "bad" is invalid:',
        'spec.data[0].remoteRef.decryptingStrategy.scheme: Unsupported value: "RSA": supported values: "None", "RSA-OAEP"',
        "spec.data[0].secretKey: Invalid value: \"bad key\": spec.data[0].secretKey in body should match '^[-._a-zA-Z0-9]+$'",
        "spec.data[0].sourceRef: Invalid value: 0: spec.data[0].sourceRef in body should have at least 1 properties",
        "spec.data[1].remoteRef.key: Required value",
        "spec.data[1].sourceRef: Too many: 2: must have at most 1 items",
        "spec.dataFrom[0].rewrite[0].regexp.target: Required value",
        'spec.secretStoreRef.kind: Unsupported value: "Vault": supported values: "SecretStore", "ClusterSecretStore"',
        'spec.target.creationPolicy: Unsupported value: "Adopt": supported values: "Owner", "Orphan", "Merge", "None"',
      );
      assert.doesNotMatch(result.stderr, new RegExp(RULES_SKIPPED));
    });

    it("ExternalSecret status goes through the status sub-resource (atomic binding defaulted) and shows in the columns; a merge patch's null brings a default back", async () => {
      const status = {
        refreshTime: "2019-08-12T12:33:02Z",
        binding: {},
        conditions: [{ type: "Ready", status: "True", reason: "SecretSynced", message: "Secret was synced", lastTransitionTime: "2019-08-12T12:33:02Z" }],
      };
      const patched = json(
        ok(await newest(["patch", "externalsecret", "example", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status }), "-o", "json"])),
      );
      assert.deepEqual((patched["status"] as Json)["binding"], { name: "" });
      assert.match(ok(await oldest(["get", "es", "example"])), /\nexample\s+SecretStore\s+secretstore-sample\s+1h\s+SecretSynced\s+True\n$/);
      const respec = json(ok(await newest(["patch", "es", "example", "--type=merge", "-p", '{"spec":{"refreshInterval":null}}', "-o", "json"])));
      assert.equal((respec["spec"] as Json)["refreshInterval"], "1h");
      ok(await newest(["delete", "es", "example"]));
    });

    it("KEDA ScaledObject: the documented sample shown with its integer printer columns; status through the sub-resource fills the condition columns; refusals in kube-openapi's words (dotted map-value paths)", async () => {
      ok(await oldest(["apply", "-f", fixture("keda-scaledobjects-samples.yaml")]));
      const header = /^NAME\s+SCALETARGETKIND\s+SCALETARGETNAME\s+MIN\s+MAX\s+READY\s+ACTIVE\s+FALLBACK\s+PAUSED\s+TRIGGERS\s+AUTHENTICATIONS\s+AGE\n/;
      const before = ok(await newest(["get", "scaledobjects"]));
      assert.match(before, header);
      assert.match(before, /\ncron-scaledobject\s+my-deployment\s+0\s+4\s+\S+\n$/);
      const status = {
        scaleTargetKind: "apps/v1.Deployment",
        triggersTypes: "cron,cpu",
        conditions: ["Ready", "Active", "Fallback", "Paused"].map((type) => ({ type, status: type === "Ready" ? "True" : "False" })),
      };
      ok(await newest(["patch", "so", "cron-scaledobject", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status })]));
      assert.match(
        ok(await oldest(["get", "so"])),
        /\ncron-scaledobject\s+apps\/v1\.Deployment\s+my-deployment\s+0\s+4\s+True\s+False\s+False\s+False\s+cron,cpu\s+\S+\n$/,
      );
      const bad = scratch(
        "bad-scaledobject.yaml",
        `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: bad}
spec:
  scaleTargetRef: {}
  minReplicaCount: "0"
  advanced: {horizontalPodAutoscalerConfig: {behavior: {scaleDown: {stabilizationWindowSeconds: 4000, policies: [{type: Pods, value: 1}]}}}}
  triggers:
  - type: cron
    metadata: {desiredReplicas: 1}
  - type: cpu
`,
      );
      const result = await newest(["create", "-f", bad]);
      refused(
        result,
        "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.policies[0].periodSeconds: Required value",
        "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds in body should be less than or equal to 3600",
        'spec.minReplicaCount: Invalid value: "string": spec.minReplicaCount in body must be of type integer: "string"',
        "spec.scaleTargetRef.name: Required value",
        'spec.triggers[0].metadata.desiredReplicas: Invalid value: "integer": spec.triggers[0].metadata.desiredReplicas in body must be of type string: "integer"',
        "spec.triggers[1].metadata: Required value",
      );
      assert.doesNotMatch(result.stderr, new RegExp(RULES_SKIPPED));
      ok(await newest(["delete", "so", "cron-scaledobject"]));
    });

    if (gateway) {
      it("HTTPRoute and ReferenceGrant: the documented samples stored with exactly the schema's defaults, HOSTNAMES shown; a v1beta1 object read at v1", async () => {
        ok(await oldest(["apply", "-f", fixture("gateway-api-httproutes-samples.yaml")]));
        const routes = new Map<string, Json>();
        for (const name of ["foo-route", "http-filter-redirect", "timeout-example", "http-filter-mirror"])
          routes.set(name, json(ok(await newest(["get", "httproute", name, "-o", "json"]))));
        const spec = (name: string): Json => (routes.get(name)?.["spec"] ?? {}) as Json;
        assert.deepEqual(spec("foo-route"), {
          hostnames: ["foo.example.com"],
          parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "example-gateway" }],
          rules: [
            {
              backendRefs: [{ group: "", kind: "Service", name: "foo-svc", port: 8080, weight: 1 }],
              matches: [{ path: { type: "PathPrefix", value: "/login" } }],
            },
          ],
        });
        // No matches written: the rule's `matches` default, then the mirror's backendRef defaults.
        assert.deepEqual((spec("http-filter-mirror")["rules"] as Json[])[0], {
          backendRefs: [{ group: "", kind: "Service", name: "foo-v1", port: 8080, weight: 1 }],
          filters: [{ requestMirror: { backendRef: { group: "", kind: "Service", name: "foo-v2", port: 8080 } }, type: "RequestMirror" }],
          matches: [{ path: { type: "PathPrefix", value: "/" } }],
        });
        assert.deepEqual((spec("http-filter-redirect")["rules"] as Json[])[0], {
          filters: [{ requestRedirect: { path: { replacePrefixMatch: "/paprika", type: "ReplacePrefixMatch" }, statusCode: 302 }, type: "RequestRedirect" }],
          matches: [{ path: { type: "PathPrefix", value: "/cayenne" } }],
        });
        const timeout = routes.get("timeout-example");
        assert.equal(timeout?.["apiVersion"], "gateway.networking.k8s.io/v1");
        assert.deepEqual(((timeout?.["spec"] as Json)["rules"] as Json[])[0]?.["timeouts"], { backendRequest: "2s", request: "10s" });
        assert.match(
          ok(await oldest(["get", "httproutes"])),
          /^NAME\s+HOSTNAMES\s+AGE\nfoo-route\s+\["foo\.example\.com"\]\s+\S+\nhttp-filter-mirror\s+\["mirror\.example"\]\s+\S+\nhttp-filter-redirect\s+\["redirect\.example"\]\s+\S+\ntimeout-example\s+\["timeout\.example\.com"\]\s+\S+\n$/,
        );
        // Stored at v1beta1, read at the preferred v1.
        const grant = json(ok(await newest(["get", "refgrant", "allow-prod-traffic", "-o", "json"])));
        assert.equal(grant["apiVersion"], "gateway.networking.k8s.io/v1");
        assert.deepEqual(grant["spec"], {
          from: [{ group: "gateway.networking.k8s.io", kind: "HTTPRoute", namespace: "prod" }],
          to: [{ group: "", kind: "Service" }],
        });
        assert.match(ok(await oldest(["get", "referencegrants"])), /^NAME\s+AGE\nallow-prod-traffic\s+\S+\n$/);
      });

      it("HTTPRoute: the CEL rules refuse what they were written to refuse, each at its path as kube words an object rule", async () => {
        const bad = scratch(
          "bad-httproute.yaml",
          `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-rules}
spec:
  rules:
  - matches:
    - path: {type: Exact, value: "a//b"}
    - path: {type: PathPrefix, value: "/x/.."}
    - path: {type: PathPrefix, value: "/a b"}
    filters:
    - type: RequestRedirect
      requestRedirect: {path: {type: ReplaceFullPath}}
    - type: URLRewrite
      urlRewrite: {path: {type: ReplacePrefixMatch, replaceFullPath: /x}}
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: a, value: b}]}
    - type: RequestHeaderModifier
      responseHeaderModifier: {set: [{name: a, value: b}]}
    backendRefs:
    - {name: svc}
    timeouts: {request: 1s, backendRequest: 2s}
  - backendRefs:
    - name: s
      port: 80
      filters:
      - {type: RequestMirror, requestMirror: {backendRef: {name: m}, percent: 5, fraction: {numerator: 3, denominator: 2}}}
`,
        );
        refused(
          await newest(["create", "-f", bad]),
          'spec.rules[0]: Invalid value: "object": RequestRedirect filter must not be used together with backendRefs',
          'spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference',
          'spec.rules[0].filters: Invalid value: "array": May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both',
          'spec.rules[0].filters: Invalid value: "array": RequestHeaderModifier filter cannot be repeated',
          "spec.rules[0].filters[0].requestRedirect.path: Invalid value: \"object\": replaceFullPath must be specified when type is set to 'ReplaceFullPath'",
          "spec.rules[0].filters[1].urlRewrite.path: Invalid value: \"object\": type must be 'ReplaceFullPath' when replaceFullPath is set",
          'spec.rules[0].filters[3]: Invalid value: "object": filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type',
          'spec.rules[0].filters[3]: Invalid value: "object": filter.responseHeaderModifier must be nil if the filter.type is not ResponseHeaderModifier',
          "spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']",
          "spec.rules[0].matches[0].path: Invalid value: \"object\": must not contain '//' when type one of ['Exact', 'PathPrefix']",
          "spec.rules[0].matches[1].path: Invalid value: \"object\": must not end with '/..' when type one of ['Exact', 'PathPrefix']",
          "spec.rules[0].matches[2].path: Invalid value: \"object\": must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']",
          'spec.rules[0].timeouts: Invalid value: "object": backendRequest timeout cannot be longer than request timeout',
          'spec.rules[1].backendRefs[0].filters[0].requestMirror: Invalid value: "object": Only one of percent or fraction may be specified in HTTPRequestMirrorFilter',
          'spec.rules[1].backendRefs[0].filters[0].requestMirror.fraction: Invalid value: "object": numerator must be less than or equal to denominator',
        );
        // A RegularExpression path is not held to the Exact/PathPrefix rules; a PathPrefix redirect with one PathPrefix match passes.
        const good = {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "HTTPRoute",
          metadata: { name: "regex" },
          spec: { rules: [{ matches: [{ path: { type: "RegularExpression", value: "a//b" } }], backendRefs: [{ name: "s", port: 80 }] }] },
        };
        ok(await oldest(["create", "-f", scratch("regex-route.json", JSON.stringify(good))]));
        ok(await newest(["delete", "httproute", "regex"]));
      });

      it("HTTPRoute and ReferenceGrant: OpenAPI refusals in kube's words (Unsupported value, Duplicate value, Too many, minItems, Required), CEL skipped after a wrong-shape value", async () => {
        const shape = {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "HTTPRoute",
          metadata: { name: "bad-shape" },
          spec: {
            hostnames: ["Foo.example.com", ...Array.from({ length: 16 }, (_, index) => `h${index}.example.com`)],
            rules: [
              {
                matches: [
                  {
                    path: { type: "Exact", value: "a//b" },
                    headers: [
                      { name: "x-a", value: "1" },
                      { name: "x-a", value: "2" },
                    ],
                    method: "FETCH",
                  },
                ],
                filters: [{ type: "RequestRedirect", requestRedirect: { statusCode: 307 } }],
                backendRefs: [{ name: "svc", port: 80, weight: -1 }],
              },
            ],
          },
        };
        const result = await newest(["create", "-f", scratch("bad-shape.json", JSON.stringify(shape))]);
        refused(
          result,
          "spec.hostnames: Too many: 17: must have at most 16 items",
          "spec.hostnames[0]: Invalid value: \"Foo.example.com\": spec.hostnames[0] in body should match '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'",
          "spec.rules[0].backendRefs[0].weight: Invalid value: -1: spec.rules[0].backendRefs[0].weight in body should be greater than or equal to 0",
          'spec.rules[0].filters[0].requestRedirect.statusCode: Unsupported value: 307: supported values: "301", "302"',
          'spec.rules[0].matches[0].headers[1]: Duplicate value: map[string]interface {}{"name":"x-a"}',
          'spec.rules[0].matches[0].method: Unsupported value: "FETCH": supported values: "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"',
          `<nil>: Invalid value: "null": ${RULES_SKIPPED}`,
        );
        assert.doesNotMatch(result.stderr, /must not contain/);
        // A size or required violation also stops the rules (kube's hasBlockingErr): 17 hostnames and
        // 129 matches report the hostnames and the skipped rules, not the total-matches rule.
        const crowded = {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "HTTPRoute",
          metadata: { name: "crowded" },
          spec: {
            hostnames: Array.from({ length: 17 }, (_, index) => `h${index}.example.com`),
            rules: [64, 64, 1].map((count) => ({ matches: Array.from({ length: count }, (_, index) => ({ path: { value: `/${index}` } })) })),
          },
        };
        const tooMany = await newest(["create", "-f", scratch("crowded.json", JSON.stringify(crowded))]);
        refused(tooMany, "spec.hostnames: Too many: 17: must have at most 16 items", `<nil>: Invalid value: "null": ${RULES_SKIPPED}`);
        assert.doesNotMatch(tooMany.stderr, /total number of matches/);
        crowded.spec.hostnames = ["h.example.com"];
        refused(
          await newest(["create", "-f", scratch("crowded.json", JSON.stringify(crowded))]),
          'spec.rules: Invalid value: "array": While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128',
        );
        const grant = {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "ReferenceGrant",
          metadata: { name: "bad-grant" },
          spec: { from: [], to: Array.from({ length: 17 }, () => ({ group: "", kind: "Service" })) },
        };
        refused(
          await oldest(["create", "-f", scratch("bad-grant.json", JSON.stringify(grant))]),
          "spec.from: Invalid value: 0: spec.from in body should have at least 1 items",
          "spec.to: Too many: 17: must have at most 16 items",
        );
        refused(
          await newest(["create", "-f", scratch("bad-grant-2.json", JSON.stringify({ ...grant, spec: { from: [{ kind: "HTTPRoute" }] } }))]),
          "spec.to: Required value",
          "spec.from[0].group: Required value",
          "spec.from[0].namespace: Required value",
        );
      });

      it("HTTPRoute status through the status sub-resource (parentRef defaults), refused in kube's words; GatewayClass's transition rule (self == oldSelf) on update", async () => {
        const parent = {
          parentRef: { name: "example-gateway" },
          controllerName: "example.com/gateway-controller",
          conditions: [{ type: "Accepted", status: "True", reason: "Accepted", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }],
        };
        const patched = json(
          ok(
            await newest([
              "patch",
              "httproute",
              "foo-route",
              "--subresource=status",
              "--type=merge",
              "-p",
              JSON.stringify({ status: { parents: [parent] } }),
              "-o",
              "json",
            ]),
          ),
        );
        assert.deepEqual(((patched["status"] as Json)["parents"] as Json[])[0]?.["parentRef"], {
          group: "gateway.networking.k8s.io",
          kind: "Gateway",
          name: "example-gateway",
        });
        const badStatus = { status: { parents: [{ ...parent, controllerName: "example.com", conditions: [] }] } };
        refused(
          await oldest(["patch", "httproute", "foo-route", "--subresource=status", "--type=merge", "-p", JSON.stringify(badStatus)]),
          "status.parents[0].controllerName: Invalid value: \"example.com\": status.parents[0].controllerName in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/[A-Za-z0-9\\/\\-._~%!$&'()*+,;=:]+$'",
          "status.parents[0].conditions: Invalid value: 0: status.parents[0].conditions in body should have at least 1 items",
        );
        ok(await oldest(["apply", "-f", fixture("gateway-api-gatewayclasses-samples.yaml")]));
        refused(
          await newest(["patch", "gatewayclass", "example", "--type=merge", "-p", '{"spec":{"controllerName":"example.com/other"}}']),
          'spec.controllerName: Invalid value: "string": Value is immutable',
        );
        ok(await newest(["patch", "gatewayclass", "example", "--type=merge", "-p", '{"spec":{"description":"the same controller"}}']));
        ok(await newest(["delete", "httproute", "foo-route", "http-filter-redirect", "timeout-example", "http-filter-mirror"]));
        ok(await newest(["delete", "refgrant", "allow-prod-traffic"]));
        ok(await newest(["delete", "gatewayclass", "example"]));
      });
    }
  });
}

suite(KUBERNETES_PROFILE, [EXTERNAL_SECRETS, KEDA, ...GATEWAY]);
suite(ORCH_PROFILE, [EXTERNAL_SECRETS, KEDA]);
