import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import { endpointNames } from "../endpoint/service-pods.js";
import { desiredSlices, sliceOwnerOf } from "./slices.js";

describe("desiredSlices()", () => {
  const names = endpointNames(ORCH_PROFILE);
  const service: ApiObject = { metadata: { name: "web", namespace: "default", uid: "u1" } };
  const owner = sliceOwnerOf(service, "Service", names.sliceManager, names);

  it('writes an unnamed port as `name: ""`, as kube stores it (SetDefaults_EndpointPort), so a stored slice equals the desired one', () => {
    const groups = [
      {
        addressType: "IPv4" as const,
        ports: [
          { port: 8080, protocol: "TCP" },
          { name: "dns", port: 53, protocol: "UDP" },
        ],
        endpoints: [{ addresses: ["10.0.0.1"] }],
      },
    ];
    const [slice] = [...desiredSlices(owner, groups, names).values()];
    assert.deepEqual(slice?.["ports"], [
      { name: "", port: 8080, protocol: "TCP" },
      { name: "dns", port: 53, protocol: "UDP" },
    ]);
  });
});
