import assert from "node:assert/strict";
import https from "node:https";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { generateTlsPair } from "../testing/admission-certificates.js";
import { componentStatuses, controllerManagerHealth, probeHealthz } from "./component-statuses.js";

/** A port nothing listens on: taken, then let go. */
async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("ComponentStatus as kube computes it", () => {
  let server: https.Server;
  let base = "";
  before(async () => {
    server = https.createServer(generateTlsPair(), (request, response) => {
      if (request.url === "/healthz") response.end("ok");
      else if (request.url === "/failing") response.writeHead(500).end("[-]ping failed");
      else if (request.url === "/redirect") response.writeHead(302, { location: "/healthz" }).end("moved");
      // /hang: never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("a component answering /healthz is healthy with its body as the message (TLS not verified, as kube's probe)", async () => {
    assert.deepEqual(await probeHealthz(`${base}/healthz`, 5000), { status: "True", message: "ok" });
    assert.deepEqual(await probeHealthz(`${base}/redirect`, 5000), { status: "True", message: "moved" });
  });

  it("another status, a refused connection and a timeout are unhealthy, worded as kube words them", async () => {
    assert.deepEqual(await probeHealthz(`${base}/failing`, 5000), { status: "False", message: "HTTP probe failed with statuscode: 500" });
    const port = await freePort();
    assert.deepEqual(await probeHealthz(`https://127.0.0.1:${port}/healthz`, 5000), {
      status: "False",
      message: `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
    assert.deepEqual(await probeHealthz(`${base}/hang`, 200), {
      status: "False",
      message: `Get "${base}/hang": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    });
  });

  it("lists controller-manager, etcd-0 and scheduler by name, each with one Healthy condition", async () => {
    const port = await freePort();
    const objects = await componentStatuses({
      controllers: () => ({ status: "True", message: "ok" }),
      storage: async () => {},
      schedulerUrl: `https://127.0.0.1:${port}/healthz`,
    }).objects();
    assert.deepEqual(objects, [
      {
        kind: "ComponentStatus",
        apiVersion: "v1",
        metadata: { name: "controller-manager", creationTimestamp: null },
        conditions: [{ type: "Healthy", status: "True", message: "ok" }],
      },
      {
        kind: "ComponentStatus",
        apiVersion: "v1",
        metadata: { name: "etcd-0", creationTimestamp: null },
        conditions: [{ type: "Healthy", status: "True", message: "ok" }],
      },
      {
        kind: "ComponentStatus",
        apiVersion: "v1",
        metadata: { name: "scheduler", creationTimestamp: null },
        conditions: [
          { type: "Healthy", status: "False", message: `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused` },
        ],
      },
    ]);
  });

  it("a failing store is etcd-0 unhealthy with the failure as the error; without built-in controllers the controller manager's port is probed", async () => {
    const objects = await componentStatuses({
      storage: async () => {
        throw new Error("database is locked");
      },
      schedulerUrl: `${base}/healthz`,
      controllerManagerUrl: `${base}/failing`,
    }).objects();
    const conditions = Object.fromEntries(objects.map((object) => [object.metadata.name, (object["conditions"] as unknown[])[0]]));
    assert.deepEqual(conditions, {
      "controller-manager": { type: "Healthy", status: "False", message: "HTTP probe failed with statuscode: 500" },
      "etcd-0": { type: "Healthy", status: "False", error: "database is locked" },
      scheduler: { type: "Healthy", status: "True", message: "ok" },
    });
  });

  it("the built-in controller manager is healthy once every controller has synced, else names what has not", () => {
    const synced = { name: "controller-a", check: () => {} };
    const waiting = {
      name: "controller-b",
      check: () => {
        throw new Error("b has not synced");
      },
    };
    assert.deepEqual(controllerManagerHealth([synced]), { status: "True", message: "ok" });
    assert.deepEqual(controllerManagerHealth([synced, waiting]), { status: "False", message: "b has not synced" });
  });
});
