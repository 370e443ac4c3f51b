import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ORCH_PROFILE } from "../../api/profile.js";
import type { RequestContext, UserInfo } from "../../request/context.js";
import { parseRequestInfo } from "../../request/request-info.js";
import { bootstrapConfiguration } from "../flowcontrol/bootstrap.js";
import { FlowControl } from "../flowcontrol/flow-control.js";
import { priorityAndFairnessFilter } from "./priority-and-fairness.js";
import { heldHandler } from "../../testing/held-handler.js";
import { NO_FLOW_METRICS } from "../../testing/no-flow-metrics.js";

const NO_METRICS = NO_FLOW_METRICS;
const ALICE: UserInfo = { name: "alice", groups: ["system:authenticated"] };
const LEVEL_HEADER = `${ORCH_PROFILE.flowControlHeaderPrefix}PriorityLevel-UID`;

function context(method: string, path: string, query = ""): RequestContext {
  const search = new URLSearchParams(query);
  return {
    request: {
      method,
      path,
      query: search,
      headers: {},
      body: async () => Buffer.alloc(0),
      peerCertificate: undefined,
      signal: new AbortController().signal,
    },
    warnings: [],
    info: parseRequestInfo(method, path, search),
    user: ALICE,
  };
}

describe("priorityAndFairnessFilter() and kube's long-running check", () => {
  // A server limit of 1: every Limited level (alice's global-default among them) has one seat.
  const flowControl = new FlowControl({ feeds: undefined, bootstrap: bootstrapConfiguration(ORCH_PROFILE), serverConcurrencyLimit: 1, metrics: NO_METRICS });
  const filter = priorityAndFairnessFilter({ flowControl, metrics: NO_METRICS, profile: ORCH_PROFILE, waitLimitMs: 50 });

  it("lets every log request (followed or not), exec, attach, port-forward, proxy (with a path) and /debug/pprof/ past unclassified, with the level's one seat taken", async () => {
    const held = heldHandler();
    const handle = filter(held.handler);
    const holder = handle(context("GET", "/api/v1/namespaces/a/configmaps/c"));
    assert.equal(held.reached(), 1);
    const passing = [
      context("GET", "/api/v1/namespaces/a/pods/p/log"),
      context("GET", "/api/v1/namespaces/a/pods/p/log", "follow=true"),
      context("GET", "/api/v1/namespaces/a/pods/p/log", "follow=false&container=c"),
      context("POST", "/api/v1/namespaces/a/pods/p/exec", "command=ls"),
      context("GET", "/api/v1/namespaces/a/pods/p/attach"),
      context("POST", "/api/v1/namespaces/a/pods/p/portforward", "ports=80"),
      context("GET", "/api/v1/namespaces/a/pods/p/proxy"),
      context("GET", "/api/v1/namespaces/a/services/s:80/proxy/healthz/ready"),
      context("GET", "/api/v1/nodes/n/proxy/metrics"),
      context("GET", "/debug/pprof/profile"),
    ];
    const answers = passing.map((given) => handle(given));
    assert.equal(held.reached(), 1 + passing.length);
    for (const given of passing) assert.equal(given.responseHeaders?.[LEVEL_HEADER], undefined, given.request.path);
    // A request that is not long-running waits for the seat and, past the wait limit, is 429 (the
    // queue's deadline timer does not hold the process: this one does meanwhile).
    const keepAlive = setTimeout(() => {}, 10_000);
    const waiting = await handle(context("GET", "/api/v1/namespaces/a/pods/p/status"));
    clearTimeout(keepAlive);
    assert.equal(waiting.status, 429);
    held.release();
    for (const answer of await Promise.all([holder, ...answers])) assert.equal(answer.status, 200);
  });

  it("classifies watches (they hold a seat while they start) and the requests around the long-running ones", async () => {
    const handle = filter(async () => ({ status: 200, headers: {}, body: "ok" }));
    for (const [method, path, query] of [
      ["GET", "/api/v1/namespaces/a/pods", "watch=true"],
      ["GET", "/api/v1/namespaces/a/pods/p", ""],
      ["GET", "/api/v1/namespaces/a/pods/p/status", ""],
      ["GET", "/api/v1/namespaces/a/pods/logs", ""],
      ["GET", "/debug/pprof", ""],
    ] as const) {
      const given = context(method, path, query);
      assert.equal((await handle(given)).status, 200);
      assert.notEqual(given.responseHeaders?.[LEVEL_HEADER], undefined, `${path}?${query}`);
    }
  });
});
