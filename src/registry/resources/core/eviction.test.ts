import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const PODS = "/api/v1/namespaces/default/pods";

/** A length-delimited protobuf field whose tag and length fit in one byte each. */
const field = (tag: number, bytes: readonly number[]): number[] => [tag, bytes.length, ...bytes];
const text = (value: string): number[] => [...Buffer.from(value)];

/**
 * The policy/v1 Eviction a client-go clientset set to protobuf posts (cluster-autoscaler, the
 * descheduler, controllers): kube's envelope around {metadata=1 {name=1, namespace=3},
 * deleteOptions=2 {gracePeriodSeconds=1}}, worked out by hand.
 */
function protobufEviction(name: string): Buffer {
  const raw = [...field(0x0a, [...field(0x0a, text(name)), ...field(0x1a, text("default"))]), ...field(0x12, [0x08, 0x00])];
  const typeMeta = [...field(0x0a, text("policy/v1")), ...field(0x12, text("Eviction"))];
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...field(0x0a, typeMeta), ...field(0x12, raw), 0x1a, 0x00, 0x22, 0x00]);
}

describe("pods/{name}/eviction with a protobuf body", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("evicts the pod, as kube does for a protobuf Eviction (it used to be 415)", async () => {
    const created = await server.call("POST", PODS, {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "e1" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
    });
    assert.equal(created.status, 201, created.text);
    const evicted = await server.call("POST", `${PODS}/e1/eviction`, {
      body: protobufEviction("e1"),
      headers: { "content-type": "application/vnd.kubernetes.protobuf", accept: "application/json" },
    });
    assert.equal(evicted.status, 201, evicted.text);
    assert.deepEqual([evicted.json["kind"], evicted.json["status"]], ["Status", "Success"]);
    assert.equal((await server.call("GET", `${PODS}/e1`)).status, 404);
  });

  it("refuses an Eviction naming another pod with kube's 400, protobuf or not", async () => {
    const created = await server.call("POST", PODS, {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "e2" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
    });
    assert.equal(created.status, 201, created.text);
    const wrong = await server.call("POST", `${PODS}/e2/eviction`, {
      body: protobufEviction("other"),
      headers: { "content-type": "application/vnd.kubernetes.protobuf", accept: "application/json" },
    });
    assert.equal(wrong.status, 400, wrong.text);
    assert.match(String(wrong.json["message"]), /name in URL does not match name in Eviction object/);
  });
});
