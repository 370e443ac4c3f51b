import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RequestContext, UserInfo } from "../../request/context.js";
import type { RequestInfo, ResourceRequestInfo, ResourceVerb } from "../../request/request-info.js";
import { maxInFlightFilter } from "./max-in-flight.js";
import { heldHandler } from "../../testing/held-handler.js";

const ALICE: UserInfo = { name: "alice", groups: ["system:authenticated"] };
const ADMIN: UserInfo = { name: "admin", groups: ["system:masters", "system:authenticated"] };

function resource(verb: ResourceVerb, subresource = ""): ResourceRequestInfo {
  return { kind: "resource", verb, apiPrefix: "api", group: "", version: "v1", namespace: "default", resource: "pods", name: "", subresource };
}

function context(info: RequestInfo, user: UserInfo = ALICE): RequestContext {
  return {
    request: {
      method: "GET",
      path: "/",
      query: new URLSearchParams(),
      headers: {},
      body: async () => Buffer.alloc(0),
      peerCertificate: undefined,
      signal: new AbortController().signal,
    },
    warnings: [],
    info,
    user,
  };
}

describe("maxInFlightFilter() (kube's --max-requests-inflight / --max-mutating-requests-inflight with APF off)", () => {
  it("lets the limit of read-only and of mutating requests execute at once, each kind on its own; one over is 429 at once", async () => {
    const held = heldHandler();
    const rejected: RequestContext[] = [];
    const handle = maxInFlightFilter({ nonMutatingLimit: 2, mutatingLimit: 1, onRejected: (given) => rejected.push(given) })(held.handler);
    const reads = [handle(context(resource("get"))), handle(context(resource("list")))];
    const write = handle(context(resource("create")));
    const overRead = await handle(context(resource("get")));
    const overWrite = await handle(context({ kind: "non-resource", verb: "post", path: "/apis" }));
    for (const answer of [overRead, overWrite]) {
      assert.equal(answer.status, 429);
      assert.equal(answer.headers["Retry-After"], "1");
      assert.equal(answer.body, "Too many requests, please try again later.\n");
    }
    assert.equal(rejected.length, 2);
    assert.equal(held.reached(), 3);
    held.release();
    for (const answer of await Promise.all([...reads, write])) assert.equal(answer.status, 200);
    // The seats are free again once the answers are back.
    const again = handle(context(resource("get")));
    held.release();
    assert.equal((await again).status, 200);
  });

  it("counts neither long-running requests nor system:masters, and a limit of 0 lifts it", async () => {
    const held = heldHandler();
    const handle = maxInFlightFilter({ nonMutatingLimit: 1, mutatingLimit: 1 })(held.handler);
    const first = handle(context(resource("get")));
    const passing = [
      handle(context(resource("watch"))),
      handle(context(resource("get", "log"))),
      handle(context(resource("create", "exec"))),
      handle(context(resource("get", "portforward"))),
      handle(context({ ...resource("get", "proxy"), subpath: "metrics/cadvisor" })),
      handle(context({ kind: "non-resource", verb: "get", path: "/debug/pprof/profile" })),
      handle(context(resource("get"), ADMIN)),
    ];
    assert.equal(held.reached(), 8);
    assert.equal((await handle(context(resource("get")))).status, 429);
    held.release();
    await Promise.all([first, ...passing]);

    const unlimited = heldHandler();
    const open = maxInFlightFilter({ nonMutatingLimit: 0, mutatingLimit: 0 })(unlimited.handler);
    const many = Array.from({ length: 50 }, () => open(context(resource("patch"))));
    assert.equal(unlimited.reached(), 50);
    unlimited.release();
    await Promise.all(many);
  });
});
