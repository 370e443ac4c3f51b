// The server's own Service in `default`, with Endpoints and an EndpointSlice pointing at itself.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { json, request } from "./helpers/http.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;

for (const [profile, name, discovery] of [
  [KUBERNETES_PROFILE, "kubernetes", "discovery.k8s.io"],
  [ORCH_PROFILE, "orch", "discovery.orch.io"],
] as const) {
  describe(`the server's own service (${profile.name} profile)`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });

    it(`is named ${name}, takes the first address of the range and points at the server's port`, async () => {
      const admin = server().admin;
      const port = Number(new URL(admin.url).port);
      const spec = await waitFor(
        async () => {
          const service = json(await request(admin, "GET", `/api/v1/namespaces/default/services/${name}`));
          const current = service["spec"] as Json | undefined;
          return (current?.["ports"] as Json[] | undefined)?.[0]?.["targetPort"] === port ? current : undefined;
        },
        { what: "the server's Service on the server's port" },
      );
      assert.equal(spec["clusterIP"], "10.0.0.1");
      assert.deepEqual(spec["ports"], [{ name: "https", port: 443, protocol: "TCP", targetPort: port }]);
      const endpoints = await waitFor(
        async () => {
          const answer = await request(admin, "GET", `/api/v1/namespaces/default/endpoints/${name}`);
          return answer.status === 200 ? json(answer) : undefined;
        },
        { what: "the server's Endpoints" },
      );
      assert.deepEqual(endpoints["subsets"], [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port, protocol: "TCP" }] }]);
      const slice = await waitFor(
        async () => {
          const answer = await request(admin, "GET", `/apis/${discovery}/v1/namespaces/default/endpointslices/${name}`);
          return answer.status === 200 ? json(answer) : undefined;
        },
        { what: "the server's EndpointSlice" },
      );
      assert.equal(slice["addressType"], "IPv4");
      assert.deepEqual(slice["ports"], [{ name: "https", port, protocol: "TCP" }]);
      assert.deepEqual(
        (slice["endpoints"] as Json[]).map((endpoint) => endpoint["addresses"]),
        [["127.0.0.1"]],
      );
      assert.equal(((slice["metadata"] as Json)["labels"] as Json)[`${profile.keyDomain}/service-name`], name);
    });
  });
}
