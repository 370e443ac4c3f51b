import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const PODS = "/api/v1/namespaces/default/pods";

describe("a pod's container statuses carry kube's always-written fields", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    const created = await server.call("POST", PODS, { body: { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await server.stop();
  });

  it("fills state, lastState (a terminated state's exitCode), ready, restartCount, image and imageID a status write leaves out, and keeps what it sends", async () => {
    const written = await server.call("PATCH", `${PODS}/p/status`, {
      body: {
        status: {
          phase: "Running",
          containerStatuses: [{ name: "c", ready: true }],
          initContainerStatuses: [{ name: "i", restartCount: 2, state: { terminated: { reason: "Completed" } } }],
        },
      },
      headers: { "content-type": "application/strategic-merge-patch+json" },
    });
    assert.equal(written.status, 200, written.text);
    const status = written.json["status"] as Json;
    assert.deepEqual(status["containerStatuses"], [{ name: "c", ready: true, state: {}, lastState: {}, restartCount: 0, image: "", imageID: "" }]);
    assert.deepEqual(status["initContainerStatuses"], [
      { name: "i", restartCount: 2, state: { terminated: { reason: "Completed", exitCode: 0 } }, lastState: {}, ready: false, image: "", imageID: "" },
    ]);
    const read = await server.call("GET", `${PODS}/p`);
    assert.deepEqual((read.json["status"] as Json)["containerStatuses"], status["containerStatuses"]);
  });
});
