// Real kubectl (the default release, see helpers/kubectl.ts) against the built-in catalogue's schemas: explain (OpenAPI v3), client-side
// apply of a multi-document manifest (strategic merge patches computed from the served schemas),
// diff, server-side field validation, in both product-name profiles.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { stringify } from "yaml";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { kubectlFor, parseTable, resolveKubectl, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";

const KUBECTL = resolveKubectl("default");
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

interface Manifest {
  readonly replicas: number;
  readonly image: string;
  readonly sidecar: boolean;
  readonly data: Record<string, string>;
  readonly path: string;
  readonly verbs: readonly string[];
}

function documents(groups: { networking: string; rbac: string }, manifest: Manifest): string {
  const containers = [
    { name: "web", image: manifest.image, ports: [{ containerPort: 80 }], env: [{ name: "MODE", value: "prod" }] },
    ...(manifest.sidecar ? [{ name: "sidecar", image: "busybox:1.36", command: ["sleep", "3600"] }] : []),
  ];
  const objects = [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        replicas: manifest.replicas,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers } },
      },
    },
    { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 80 }] } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web-config" }, data: manifest.data },
    {
      apiVersion: `${groups.networking}/v1`,
      kind: "Ingress",
      metadata: { name: "web" },
      spec: {
        rules: [
          {
            host: "web.example.com",
            http: { paths: [{ path: manifest.path, pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] },
          },
        ],
      },
    },
    {
      apiVersion: `${groups.rbac}/v1`,
      kind: "Role",
      metadata: { name: "web-reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: manifest.verbs }],
    },
    {
      apiVersion: `${groups.rbac}/v1`,
      kind: "RoleBinding",
      metadata: { name: "web-reader" },
      roleRef: { apiGroup: groups.rbac, kind: "Role", name: "web-reader" },
      subjects: [{ kind: "ServiceAccount", name: "default", namespace: "default" }],
    },
  ];
  return objects.map((object) => stringify(object)).join("---\n");
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`kubectl ${KUBECTL.version} and the catalogue's schemas (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });
    let kubectl: Kubectl;
    let count = 0;
    const groups = { networking: apiGroup(profile, "networking"), rbac: apiGroup(profile, "rbac.authorization") };
    const write = (text: string): string => {
      const path = join(server().dataDir, `catalogue-${++count}.yaml`);
      writeFileSync(path, text);
      return path;
    };
    const first: Manifest = { replicas: 2, image: "nginx:1.25", sidecar: true, data: { a: "1", b: "2" }, path: "/", verbs: ["get"] };
    const second: Manifest = { replicas: 3, image: "nginx:1.26", sidecar: false, data: { a: "1", c: "3" }, path: "/app", verbs: ["get", "list"] };

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, KUBECTL);
    });

    it("api-resources lists every resource of the catalogue, as kube 1.30 lists those groups", async () => {
      const g = (prefix: string): string => `${apiGroup(profile, prefix)}/v1`;
      // NAME SHORTNAMES APIVERSION NAMESPACED KIND, in kubectl's order (core first, then groups by name).
      const expected = [
        ["bindings", "", "v1", "true", "Binding"],
        ["componentstatuses", "cs", "v1", "false", "ComponentStatus"],
        ["configmaps", "cm", "v1", "true", "ConfigMap"],
        ["endpoints", "ep", "v1", "true", "Endpoints"],
        ["events", "ev", "v1", "true", "Event"],
        ["limitranges", "limits", "v1", "true", "LimitRange"],
        ["namespaces", "ns", "v1", "false", "Namespace"],
        ["nodes", "no", "v1", "false", "Node"],
        ["persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim"],
        ["persistentvolumes", "pv", "v1", "false", "PersistentVolume"],
        ["pods", "po", "v1", "true", "Pod"],
        ["podtemplates", "", "v1", "true", "PodTemplate"],
        ["replicationcontrollers", "rc", "v1", "true", "ReplicationController"],
        ["resourcequotas", "quota", "v1", "true", "ResourceQuota"],
        ["secrets", "", "v1", "true", "Secret"],
        ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"],
        ["services", "svc", "v1", "true", "Service"],
        ["mutatingwebhookconfigurations", "", g("admissionregistration"), "false", "MutatingWebhookConfiguration"],
        ["validatingadmissionpolicies", "", g("admissionregistration"), "false", "ValidatingAdmissionPolicy"],
        ["validatingadmissionpolicybindings", "", g("admissionregistration"), "false", "ValidatingAdmissionPolicyBinding"],
        ["validatingwebhookconfigurations", "", g("admissionregistration"), "false", "ValidatingWebhookConfiguration"],
        ["customresourcedefinitions", "crd,crds", g("apiextensions"), "false", "CustomResourceDefinition"],
        ["apiservices", "", g("apiregistration"), "false", "APIService"],
        ["controllerrevisions", "", "apps/v1", "true", "ControllerRevision"],
        ["daemonsets", "ds", "apps/v1", "true", "DaemonSet"],
        ["deployments", "deploy", "apps/v1", "true", "Deployment"],
        ["replicasets", "rs", "apps/v1", "true", "ReplicaSet"],
        ["statefulsets", "sts", "apps/v1", "true", "StatefulSet"],
        ["selfsubjectreviews", "", g("authentication"), "false", "SelfSubjectReview"],
        ["tokenreviews", "", g("authentication"), "false", "TokenReview"],
        ["localsubjectaccessreviews", "", g("authorization"), "true", "LocalSubjectAccessReview"],
        ["selfsubjectaccessreviews", "", g("authorization"), "false", "SelfSubjectAccessReview"],
        ["selfsubjectrulesreviews", "", g("authorization"), "false", "SelfSubjectRulesReview"],
        ["subjectaccessreviews", "", g("authorization"), "false", "SubjectAccessReview"],
        ["horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler"],
        ["cronjobs", "cj", "batch/v1", "true", "CronJob"],
        ["jobs", "", "batch/v1", "true", "Job"],
        ["certificatesigningrequests", "csr", g("certificates"), "false", "CertificateSigningRequest"],
        ["leases", "", g("coordination"), "true", "Lease"],
        ["endpointslices", "", g("discovery"), "true", "EndpointSlice"],
        ["events", "ev", g("events"), "true", "Event"],
        ["flowschemas", "", g("flowcontrol.apiserver"), "false", "FlowSchema"],
        ["prioritylevelconfigurations", "", g("flowcontrol.apiserver"), "false", "PriorityLevelConfiguration"],
        ["ingressclasses", "", g("networking"), "false", "IngressClass"],
        ["ingresses", "ing", g("networking"), "true", "Ingress"],
        ["networkpolicies", "netpol", g("networking"), "true", "NetworkPolicy"],
        ["runtimeclasses", "", g("node"), "false", "RuntimeClass"],
        ["poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget"],
        ["podsecuritypolicies", "psp", "policy/v1beta1", "false", "PodSecurityPolicy"],
        ["clusterrolebindings", "", g("rbac.authorization"), "false", "ClusterRoleBinding"],
        ["clusterroles", "", g("rbac.authorization"), "false", "ClusterRole"],
        ["rolebindings", "", g("rbac.authorization"), "true", "RoleBinding"],
        ["roles", "", g("rbac.authorization"), "true", "Role"],
        ["priorityclasses", "pc", g("scheduling"), "false", "PriorityClass"],
        ["csidrivers", "", g("storage"), "false", "CSIDriver"],
        ["csinodes", "", g("storage"), "false", "CSINode"],
        ["storageclasses", "sc", g("storage"), "false", "StorageClass"],
        ["volumeattachments", "", g("storage"), "false", "VolumeAttachment"],
      ];
      const rows = parseTable(ok(await kubectl(["api-resources"])));
      assert.deepEqual(
        rows.map((row) => [row["NAME"], row["SHORTNAMES"] ?? "", row["APIVERSION"], row["NAMESPACED"], row["KIND"]]),
        expected,
      );
    });

    it("explain pods.spec.containers shows the container fields from OpenAPI v3", async () => {
      const output = ok(await kubectl(["explain", "pods.spec.containers"]));
      assert.match(output, /KIND:\s+Pod/);
      assert.match(output, /FIELD: containers <\[\]Container>/);
      assert.match(output, /name\s+<string> -required-/);
      assert.match(output, /imagePullPolicy\s+<string>\n\s+enum: Always, IfNotPresent, Never/);
      assert.match(output, /ports\s+<\[\]ContainerPort>/);
    });

    it("explain follows references into other groups' kinds (ingress paths, with pathType required)", async () => {
      const output = ok(await kubectl(["explain", "ingress.spec.rules.http.paths"]));
      assert.match(output, new RegExp(`GROUP:\\s+${groups.networking.replaceAll(".", "\\.")}`));
      assert.match(output, /pathType\s+<string> -required-\n\s+enum: Exact, ImplementationSpecific, Prefix/);
      assert.match(ok(await kubectl(["explain", "deployment.spec.strategy.rollingUpdate.maxSurge"])), /FIELD: maxSurge <IntOrString>/);
    });

    it("explain --output plaintext-openapiv2 reads the Swagger 2.0 document (protobuf)", async () => {
      const output = ok(await kubectl(["explain", "pods.spec.containers", "--output", "plaintext-openapiv2"]));
      assert.match(output, /RESOURCE: containers <\[\]Object>/);
      assert.match(output, /imagePullPolicy\s+<string>/);
    });

    it("apply -f creates every object of a multi-document manifest", async () => {
      const output = ok(await kubectl(["apply", "-f", write(documents(groups, first))]));
      for (const line of [
        "deployment.apps/web created",
        "service/web created",
        "configmap/web-config created",
        `ingress.${groups.networking}/web created`,
        `role.${groups.rbac}/web-reader created`,
        `rolebinding.${groups.rbac}/web-reader created`,
      ]) {
        assert.ok(output.includes(line), `${line} in ${output}`);
      }
      const deployment = JSON.parse(ok(await kubectl(["get", "deployment", "web", "-o", "json"]))) as {
        spec: { template: { spec: { containers: { name: string; imagePullPolicy: string }[] } }; strategy: { type: string } };
      };
      assert.deepEqual(
        deployment.spec.template.spec.containers.map((container) => container.name),
        ["web", "sidecar"],
      );
      assert.equal(deployment.spec.strategy.type, "RollingUpdate", "defaulted by the server");
    });

    it("apply of a changed manifest patches each object (a container dropped by name, a key removed, a path changed)", async () => {
      const output = ok(await kubectl(["apply", "-f", write(documents(groups, second))]));
      assert.match(output, /deployment\.apps\/web configured/);
      assert.match(output, /service\/web unchanged/);
      const deployment = JSON.parse(ok(await kubectl(["get", "deployment", "web", "-o", "json"]))) as {
        spec: { replicas: number; template: { spec: { containers: { name: string; image: string; env: unknown[]; ports: unknown[] }[] } } };
      };
      assert.equal(deployment.spec.replicas, 3);
      assert.deepEqual(
        deployment.spec.template.spec.containers.map((container) => [container.name, container.image]),
        [["web", "nginx:1.26"]],
      );
      assert.deepEqual(deployment.spec.template.spec.containers[0]?.env, [{ name: "MODE", value: "prod" }]);
      assert.deepEqual(JSON.parse(ok(await kubectl(["get", "configmap", "web-config", "-o", "jsonpath={.data}"]))), { a: "1", c: "3" });
      assert.equal(ok(await kubectl(["get", "ingress", "web", "-o", "jsonpath={.spec.rules[0].http.paths[0].path}"])), "/app");
      assert.equal(ok(await kubectl(["get", "role", "web-reader", "-o", "jsonpath={.rules[0].verbs}"])), '["get","list"]');
      const rows = parseTable(ok(await kubectl(["get", "deployments", "-o", "wide"])));
      assert.equal(rows.find((row) => row["NAME"] === "web")?.["NAME"], "web");
    });

    it("diff shows nothing for the applied manifest and the changes for another", async () => {
      const same = await kubectl(["diff", "-f", write(documents(groups, second))]);
      assert.equal(same.code, 0, `${same.stdout}${same.stderr}`);
      assert.equal(same.stdout, "");
      const changed = await kubectl(["diff", "-f", write(documents(groups, { ...second, replicas: 5 }))]);
      assert.equal(changed.code, 1, changed.stderr);
      assert.match(changed.stdout, /-\s+replicas: 3\n\+\s+replicas: 5/);
    });

    it("server-side field validation: unknown fields refused (Strict), warned about with --validate=warn", async () => {
      const typo = write(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "typo" }, data: { a: "1" }, dta: { b: "2" } }));
      const refused = await kubectl(["apply", "-f", typo]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /strict decoding error: unknown field "dta"/);
      const warned = await kubectl(["apply", "--validate=warn", "-f", typo]);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(warned.stderr, /Warning: unknown field "dta"/);
      assert.deepEqual(JSON.parse(ok(await kubectl(["get", "configmap", "typo", "-o", "jsonpath={.data}"]))), { a: "1" });
    });

    it("reports validation errors by field", async () => {
      const invalid = write(
        JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "bad" }, spec: { restartPolicy: "Sometimes", containers: [{ name: "c" }] } }),
      );
      const result = await kubectl(["apply", "-f", invalid]);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /spec\.restartPolicy: Unsupported value: "Sometimes"/);
      assert.match(result.stderr, /spec\.containers\[0\]\.image: Required value/);
    });
  });
}
