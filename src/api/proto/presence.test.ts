import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinProtoMessages } from "./fields/index.js";
import { zeroKeptFields } from "./presence.js";

describe("fields that keep zero values", () => {
  it("name scalar fields of known messages", () => {
    const messages = builtinProtoMessages();
    const problems: string[] = [];
    for (const [id, names] of zeroKeptFields()) {
      const fields = messages.get(id);
      if (fields === undefined) {
        problems.push(`${id}: no such message`);
        continue;
      }
      for (const name of names) {
        const field = fields.get(name);
        if (field === undefined) problems.push(`${id}.${name}: no such field`);
        else if (field.message !== undefined) problems.push(`${id}.${name}: a message, not a scalar`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("keeps the pointer and untagged scalars kube's Go types declare (sweep 13, a sample)", () => {
    // Facts about kube's Go API types: `*string`/`*int32`/`*bool` or a JSON tag without omitempty.
    const expected: readonly (readonly [string, string])[] = [
      ["core.v1.CSIVolumeSource", "fsType"],
      ["core.v1.ClientIPConfig", "timeoutSeconds"],
      ["core.v1.NFSVolumeSource", "server path"],
      ["core.v1.ISCSIVolumeSource", "targetPortal iqn lun initiatorName"],
      ["core.v1.AzureDiskVolumeSource", "cachingMode fsType readOnly kind"],
      ["core.v1.LocalVolumeSource", "path fsType"],
      ["core.v1.PodDNSConfigOption", "value"],
      ["core.v1.LoadBalancerIngress", "ipMode"],
      ["core.v1.PersistentVolumeSpec", "volumeMode volumeAttributesClassName"],
      ["core.v1.Event", "reportingComponent reportingInstance"],
      ["apps.v1.StatefulSetSpec", "serviceName"],
      ["apps.v1.DeploymentCondition", "type status"],
      ["networking.v1.IPBlock", "cidr"],
      ["networking.v1.IngressServiceBackend", "name"],
      ["storage.v1.CSINodeDriver", "name nodeID"],
      ["autoscaling.v2.MetricTarget", "type averageUtilization"],
      ["flowcontrol.v1.LimitedPriorityLevelConfiguration", "nominalConcurrencyShares lendablePercent borrowingLimitPercent"],
      ["flowcontrol.v1beta3.QueuingConfiguration", "queues handSize queueLengthLimit"],
      ["admissionregistration.v1.ParamRef", "parameterNotFoundAction"],
      ["admissionregistration.v1beta1.Validation", "expression reason"],
      ["batch.v1.PodFailurePolicyOnExitCodesRequirement", "containerName operator"],
    ];
    const kept = zeroKeptFields();
    const missing = expected.flatMap(([id, names]) =>
      names
        .split(" ")
        .filter((name) => kept.get(id)?.has(name) !== true)
        .map((name) => `${id}.${name}`),
    );
    assert.deepEqual(missing, []);
  });

  it("leaves out non-pointer omitempty scalars (their zero is never shown)", () => {
    const kept = zeroKeptFields();
    for (const [id, name] of [
      ["core.v1.CSIVolumeSource", "volumeAttributes"],
      ["core.v1.NFSVolumeSource", "readOnly"],
      ["core.v1.EmptyDirVolumeSource", "medium"],
      ["apps.v1.StatefulSetSpec", "minReadySeconds"],
      ["networking.v1.ServiceBackendPort", "number"],
    ] as const) {
      assert.equal(kept.get(id)?.has(name) === true, false, `${id}.${name}`);
    }
  });
});
