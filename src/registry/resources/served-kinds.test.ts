import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../../api/profile.js";
import { inProcessServer } from "../../testing/in-process.js";
import { apiVersionOf, type ResourceDefinition } from "../definition.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { TEST_CSR_REQUEST } from "../../testing/csr.js";

type Json = Record<string, unknown>;

const containers = [{ name: "c", image: "busybox:1.36" }];
const podTemplate = { metadata: { labels: { app: "x" } }, spec: { containers } };
const selector = { matchLabels: { app: "x" } };
const jobSpec = { template: { spec: { restartPolicy: "Never", containers } } };
const webhook = (name: string) => ({
  name,
  clientConfig: { url: "https://hooks.example.com/admit" },
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
});
const endpointSlice = { addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.1"] }], ports: [{ name: "http", port: 80 }] };

/**
 * A minimal valid object of every served kind (without apiVersion/kind/metadata.name), by
 * `<group>/<version>/<Kind>` with the profile's group names. A kind served without an entry here
 * fails the completeness test, so every new kind comes with one.
 */
function minimalObjects(profile: Profile): Map<string, Json> {
  const g = (prefix: string): string => apiGroup(profile, prefix);
  return new Map<string, Json>([
    ["/v1/Namespace", {}],
    ["/v1/ConfigMap", { data: { a: "1" } }],
    ["/v1/Secret", { stringData: { password: "s3cret" } }],
    ["/v1/ServiceAccount", {}],
    ["/v1/Pod", { spec: { containers } }],
    ["/v1/Service", { spec: { selector: { app: "x" }, ports: [{ port: 80 }] } }],
    ["/v1/Node", { spec: { podCIDR: "10.1.0.0/24" } }],
    ["/v1/Event", { involvedObject: { kind: "Pod", name: "p", namespace: "default" }, reason: "Started", message: "started" }],
    ["/v1/Endpoints", { subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] }],
    ["/v1/LimitRange", { spec: { limits: [{ type: "Container", default: { cpu: "100m" } }] } }],
    ["/v1/ResourceQuota", { spec: { hard: { pods: "10" } } }],
    ["/v1/PersistentVolume", { spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } } }],
    ["/v1/PersistentVolumeClaim", { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
    ["/v1/PodTemplate", { template: podTemplate }],
    ["/v1/ReplicationController", { spec: { selector: { app: "x" }, template: podTemplate } }],
    ["apps/v1/Deployment", { spec: { selector, template: podTemplate } }],
    ["apps/v1/ReplicaSet", { spec: { selector, template: podTemplate } }],
    ["apps/v1/StatefulSet", { spec: { selector, serviceName: "x", template: podTemplate } }],
    ["apps/v1/DaemonSet", { spec: { selector, template: podTemplate } }],
    ["apps/v1/ControllerRevision", { revision: 1, data: { spec: { template: podTemplate } } }],
    ["batch/v1/Job", { spec: jobSpec }],
    ["batch/v1/CronJob", { spec: { schedule: "*/5 * * * *", jobTemplate: { spec: jobSpec } } }],
    ["batch/v1beta1/CronJob", { spec: { schedule: "@hourly", jobTemplate: { spec: jobSpec } } }],
    ["autoscaling/v2/HorizontalPodAutoscaler", { spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "x" }, maxReplicas: 5 } }],
    [
      "autoscaling/v1/HorizontalPodAutoscaler",
      { spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "x" }, maxReplicas: 5, targetCPUUtilizationPercentage: 70 } },
    ],
    ["policy/v1/PodDisruptionBudget", { spec: { minAvailable: 1, selector } }],
    ["policy/v1beta1/PodDisruptionBudget", { spec: { maxUnavailable: "50%", selector } }],
    [
      "policy/v1beta1/PodSecurityPolicy",
      { spec: { seLinux: { rule: "RunAsAny" }, runAsUser: { rule: "RunAsAny" }, fsGroup: { rule: "RunAsAny" }, supplementalGroups: { rule: "RunAsAny" } } },
    ],
    [
      `${g("networking")}/v1/Ingress`,
      {
        spec: {
          rules: [{ host: "x.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "x", port: { number: 80 } } } }] } }],
        },
      },
    ],
    [`${g("networking")}/v1/IngressClass`, { spec: { controller: "example.com/ingress" } }],
    [`${g("networking")}/v1/NetworkPolicy`, { spec: { podSelector: {} } }],
    [`${g("storage")}/v1/StorageClass`, { provisioner: "example.com/disk" }],
    [`${g("storage")}/v1/CSIDriver`, { spec: {} }],
    [`${g("storage")}/v1/CSINode`, { spec: { drivers: [{ name: "example.com/disk", nodeID: "n1" }] } }],
    [`${g("storage")}/v1/VolumeAttachment`, { spec: { attacher: "disk.example.com", nodeName: "n1", source: { persistentVolumeName: "pv1" } } }],
    [`${g("scheduling")}/v1/PriorityClass`, { value: 1000 }],
    [`${g("node")}/v1/RuntimeClass`, { handler: "runc" }],
    [`${g("node")}/v1beta1/RuntimeClass`, { handler: "runc" }],
    [`${g("coordination")}/v1/Lease`, { spec: { holderIdentity: "a", leaseDurationSeconds: 15 } }],
    [`${g("discovery")}/v1/EndpointSlice`, endpointSlice],
    [
      `${g("discovery")}/v1beta1/EndpointSlice`,
      {
        ...endpointSlice,
        endpoints: [
          {
            addresses: ["10.0.0.1"],
            nodeName: "n1",
            topology: { [`topology.${profile.keyDomain}/zone`]: "z1", [`${profile.keyDomain}/hostname`]: "n1", rack: "r7" },
          },
        ],
      },
    ],
    [
      `${g("events")}/v1/Event`,
      {
        eventTime: "2026-01-01T00:00:00.000000Z",
        type: "Normal",
        reason: "Started",
        action: "Start",
        reportingController: "example.com/ctl",
        reportingInstance: "ctl-1",
        regarding: { kind: "Pod", name: "p", namespace: "default" },
      },
    ],
    [
      `${g("events")}/v1beta1/Event`,
      {
        eventTime: "2026-01-01T00:00:00.000000Z",
        type: "Normal",
        reason: "Started",
        action: "Start",
        reportingController: "example.com/ctl",
        reportingInstance: "ctl-1",
      },
    ],
    [`${g("certificates")}/v1/CertificateSigningRequest`, { spec: { request: TEST_CSR_REQUEST, signerName: "example.com/signer", usages: ["client auth"] } }],
    [`${g("admissionregistration")}/v1/MutatingWebhookConfiguration`, { webhooks: [webhook("mutate.example.com")] }],
    [`${g("admissionregistration")}/v1/ValidatingWebhookConfiguration`, { webhooks: [webhook("validate.example.com")] }],
    [
      `${g("admissionregistration")}/v1beta1/MutatingWebhookConfiguration`,
      { webhooks: [{ name: "old.mutate.example.com", clientConfig: { service: { namespace: "default", name: "hook" } } }] },
    ],
    [
      `${g("admissionregistration")}/v1beta1/ValidatingWebhookConfiguration`,
      { webhooks: [{ name: "old.validate.example.com", clientConfig: { service: { namespace: "default", name: "hook" } } }] },
    ],
    ...["v1", "v1beta1", "v1alpha1"].flatMap((version): [string, Record<string, unknown>][] => [
      [
        `${g("admissionregistration")}/${version}/ValidatingAdmissionPolicy`,
        {
          spec: {
            matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
            validations: [{ expression: "object.spec.replicas <= 5" }],
          },
        },
      ],
      [`${g("admissionregistration")}/${version}/ValidatingAdmissionPolicyBinding`, { spec: { policyName: "no-such-policy", validationActions: ["Deny"] } }],
    ]),
    ...["v1", "v1beta3"].flatMap((version): [string, Record<string, unknown>][] => [
      [`${g("flowcontrol.apiserver")}/${version}/FlowSchema`, { spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 500 } }],
      [
        `${g("flowcontrol.apiserver")}/${version}/PriorityLevelConfiguration`,
        { spec: { type: "Limited", limited: { nominalConcurrencyShares: 10, limitResponse: { type: "Reject" } } } },
      ],
    ]),
    [`${g("apiregistration")}/v1/APIService`, { spec: { group: "metrics.k8s.io", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 100 } }],
    [`${g("rbac.authorization")}/v1/Role`, { rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }],
    [`${g("rbac.authorization")}/v1/ClusterRole`, { rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }],
    [
      `${g("rbac.authorization")}/v1/RoleBinding`,
      {
        roleRef: { apiGroup: g("rbac.authorization"), kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "User", name: "alice", apiGroup: g("rbac.authorization") }],
      },
    ],
    [
      `${g("rbac.authorization")}/v1/ClusterRoleBinding`,
      {
        roleRef: { apiGroup: g("rbac.authorization"), kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "User", name: "alice", apiGroup: g("rbac.authorization") }],
      },
    ],
  ]);
}

/** Names each kind takes (some kinds constrain them). */
function nameFor(definition: ResourceDefinition, profile: Profile): string {
  if (definition.kind === "CustomResourceDefinition") return `widgets.${profile.name}-test.example.com`;
  // An APIService is named after the group version it registers.
  if (definition.kind === "APIService") return "v1beta1.metrics.k8s.io";
  return `minimal-${definition.version}`;
}

function crdObject(name: string, profile: Profile): Json {
  const prefix = profile.openApiExtensionPrefixes[0] ?? "";
  const [plural = "", ...group] = name.split(".");
  return {
    spec: {
      group: group.join("."),
      scope: "Namespaced",
      names: { plural, kind: "Widget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", [`${prefix}preserve-unknown-fields`]: true } } } },
        },
      ],
    },
  };
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`every served kind at every served version (${profile.name} profile)`, () => {
    let server: Awaited<ReturnType<typeof inProcessServer>>;
    const objects = minimalObjects(profile);
    before(async () => {
      server = await inProcessServer({ profile, runtimeConfig: new Map([["api/all", true]]) });
    });
    after(async () => {
      await server.stop();
    });

    it("has a schema and a minimal object for every stored kind", () => {
      const missing = server.server.registry.stores
        .map((store) => store.definition)
        .filter((definition) => definition.virtual === undefined && definition.kind !== "ComponentStatus")
        .filter(
          (definition) =>
            definition.schema === undefined ||
            (definition.kind !== "CustomResourceDefinition" && !objects.has(`${definition.group}/${definition.version}/${definition.kind}`)),
        )
        .map((definition) => `${definition.group}/${definition.version}/${definition.kind}`);
      assert.deepEqual(missing, []);
    });

    it("can create, read, list, update, patch and delete each of them", async () => {
      const withLabel = (object: Json): Json => {
        const metadata = object["metadata"] as Json;
        return { ...object, metadata: { ...metadata, labels: { ...(metadata["labels"] as Json | undefined), updated: "yes" } } };
      };
      const failures: string[] = [];
      for (const store of server.server.registry.stores) {
        const definition = store.definition;
        if (definition.virtual !== undefined || !definition.verbs.has("create")) continue;
        const label = `${definition.group}/${definition.version}/${definition.kind}`;
        const name = nameFor(definition, profile);
        const body = definition.kind === "CustomResourceDefinition" ? crdObject(name, profile) : objects.get(label);
        if (body === undefined) continue;
        const base = definition.group === "" ? `/api/${definition.version}` : `/apis/${definition.group}/${definition.version}`;
        const collection = definition.scope === "Namespaced" ? `${base}/namespaces/default/${definition.plural}` : `${base}/${definition.plural}`;
        const item = `${collection}/${name}`;
        const check = (step: string, status: number, expected: readonly number[], text: string): boolean => {
          if (expected.includes(status)) return true;
          failures.push(`${label} ${step}: ${status} ${text.slice(0, 300)}`);
          return false;
        };
        const created = await server.call("POST", `${collection}?fieldValidation=Strict`, {
          body: { apiVersion: apiVersionOf(definition), kind: definition.kind, metadata: { name }, ...body },
        });
        if (!check("create", created.status, [201], created.text)) continue;
        const read = await server.call("GET", item);
        if (!check("get", read.status, [200], read.text)) continue;
        const list = await server.call("GET", collection);
        if (check("list", list.status, [200], list.text) && !(list.json["items"] as Json[]).some((entry) => (entry["metadata"] as Json)["name"] === name))
          failures.push(`${label} list: ${name} missing`);
        // A controller may write the object (a CRD's status) between the read and the PUT: read again on 409, as clients do.
        let current = read.json;
        let updated = await server.call("PUT", `${item}?fieldValidation=Strict`, { body: withLabel(current) });
        for (let attempt = 0; updated.status === 409 && attempt < 3; attempt++) {
          current = (await server.call("GET", item)).json;
          updated = await server.call("PUT", `${item}?fieldValidation=Strict`, { body: withLabel(current) });
        }
        if (check("update", updated.status, [200], updated.text) && ((updated.json["metadata"] as Json)["labels"] as Json)["updated"] !== "yes")
          failures.push(`${label} update: label not kept`);
        const patched = await server.call("PATCH", `${item}?fieldValidation=Strict`, {
          body: { metadata: { annotations: { patched: "yes" } } },
          headers: { "content-type": "application/merge-patch+json" },
        });
        if (check("patch", patched.status, [200], patched.text) && ((patched.json["metadata"] as Json)["annotations"] as Json)["patched"] !== "yes")
          failures.push(`${label} patch: annotation not kept`);
        const deleted = await server.call("DELETE", item);
        if (!check("delete", deleted.status, [200], deleted.text) || definition.kind === "Namespace") continue;
        // Claims and volumes carry StorageObjectInUseProtection's finalizer: its controller lets them go a moment later.
        const held = (deleted.json["metadata"] as Json | undefined)?.["deletionTimestamp"] !== undefined;
        let gone = await server.call("GET", item);
        for (const deadline = Date.now() + 5_000; held && gone.status !== 404 && Date.now() < deadline; gone = await server.call("GET", item))
          await new Promise((resolve) => setTimeout(resolve, 20));
        check("get after delete", gone.status, [404], gone.text);
      }
      assert.deepEqual(failures, []);
    });

    it("round-trips every kind served at several versions through its storage version without loss", async () => {
      const failures: string[] = [];
      const pathOf = (group: string, version: string, plural: string, namespaced: boolean, name: string): string => {
        const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
        return `${namespaced ? `${base}/namespaces/default` : base}/${plural}/${name}`;
      };
      for (const store of server.server.registry.stores) {
        const definition = store.definition;
        const storedAs = definition.storedAs;
        if (storedAs === undefined || !definition.verbs.has("create")) continue;
        const label = `${definition.group}/${definition.version}/${definition.kind}`;
        const body = objects.get(label);
        if (body === undefined) {
          failures.push(`${label}: no minimal object`);
          continue;
        }
        const name = `roundtrip-${definition.version}`;
        const namespaced = definition.scope === "Namespaced";
        const served = pathOf(definition.group, definition.version, definition.plural, namespaced, name);
        const collection = served.slice(0, served.lastIndexOf("/"));
        const created = await server.call("POST", collection, {
          body: { apiVersion: apiVersionOf(definition), kind: definition.kind, metadata: { name }, ...body },
        });
        if (created.status !== 201) {
          failures.push(`${label} create: ${created.status} ${created.text.slice(0, 200)}`);
          continue;
        }
        // Served → stored → served: what comes back is what was written (managedFields aside:
        // they are recorded per version and not converted).
        const comparable = (json: Json): string => canonicalJson({ ...json, metadata: { ...(json["metadata"] as Json), managedFields: undefined } });
        const again = await server.call("GET", served);
        if (comparable(again.json) !== comparable(created.json))
          failures.push(
            `${label}: read back differs from the create response: ${comparable(again.json).slice(0, 400)} vs ${comparable(created.json).slice(0, 400)}`,
          );
        // The storage version holds the same object (same version, same identity).
        const storagePath = pathOf(storedAs.group, storedAs.version, storedAs.plural, namespaced, name);
        const inStorage = await server.call("GET", storagePath);
        const storageMeta = inStorage.json["metadata"] as Json;
        const createdMeta = created.json["metadata"] as Json;
        if (inStorage.status !== 200 || storageMeta["uid"] !== createdMeta["uid"] || storageMeta["resourceVersion"] !== createdMeta["resourceVersion"])
          failures.push(`${label}: not the same stored object at ${storedAs.group}/${storedAs.version}`);
        await server.call("DELETE", served);
      }
      assert.deepEqual(failures, []);
    });
  });
}
