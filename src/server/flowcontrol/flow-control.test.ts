import assert from "node:assert/strict";
import { setMaxListeners } from "node:events";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import type { FeedChange, ObjectFeed } from "../../authz/feed.js";
import type { UserInfo } from "../../request/context.js";
import { parseRequestInfo } from "../../request/request-info.js";
import { bootstrapConfiguration } from "./bootstrap.js";
import { FlowControl } from "./flow-control.js";
import { allocateConcurrency } from "./borrowing.js";
import { QueueSet, type Admission } from "./queue-set.js";
import { dealHand, flowHash } from "./shuffle-shard.js";
import { WatchTracker } from "./watch-tracker.js";
import { estimateMutating, estimateSeats } from "./work-estimate.js";
import { NO_FLOW_METRICS } from "../../testing/no-flow-metrics.js";

const bootstrap = bootstrapConfiguration(ORCH_PROFILE);
const NO_METRICS = NO_FLOW_METRICS;

function staticFeed(objects: readonly ApiObject[]): ObjectFeed & { replace(next: readonly ApiObject[]): void } {
  let current = [...objects];
  const listeners = new Set<(change: FeedChange) => void>();
  return {
    objects: () => current,
    get: (_namespace, name) => current.find((object) => object.metadata.name === name),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    replace(next) {
      current = [...next];
      for (const listener of listeners) listener({ kind: "reset" });
    },
  };
}

const withUid = (objects: readonly ApiObject[]): ApiObject[] =>
  objects.map((object) => ({ ...object, metadata: { ...object.metadata, uid: `uid-${object.metadata.name}` } }));

function flowControl(extraSchemas: readonly ApiObject[] = [], extraLevels: readonly ApiObject[] = []) {
  const flowSchemas = staticFeed(withUid([...bootstrap.mandatoryFlowSchemas, ...bootstrap.suggestedFlowSchemas, ...extraSchemas]));
  const priorityLevels = staticFeed(withUid([...bootstrap.mandatoryPriorityLevels, ...bootstrap.suggestedPriorityLevels, ...extraLevels]));
  const control = new FlowControl({ feeds: { flowSchemas, priorityLevels }, bootstrap, serverConcurrencyLimit: 600, metrics: NO_METRICS });
  return { control, flowSchemas, priorityLevels };
}

const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups: [...groups, "system:authenticated"] });
const get = (path: string) => parseRequestInfo("GET", path, new URLSearchParams());

describe("classification", () => {
  const { control } = flowControl();
  const cases: [string, UserInfo, string, string, string][] = [
    ["system:masters is exempt", user("admin", "system:masters"), "/api/v1/pods", "exempt", "exempt"],
    ["probes are exempt for everyone", { name: "system:anonymous", groups: ["system:unauthenticated"] }, "/readyz", "probes", "exempt"],
    [
      "nodes' leases go to node-high",
      user("system:node:n1", "system:nodes"),
      "/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases/n1",
      "system-node-high",
      "node-high",
    ],
    ["nodes' other requests go to system", user("system:node:n1", "system:nodes"), "/api/v1/pods", "system-nodes", "system"],
    ["the controller manager by namespace", user("system:kube-controller-manager"), "/api/v1/namespaces/a/pods", "kube-controller-manager", "workload-high"],
    [
      "system service accounts' leader election",
      user("system:serviceaccount:orch-system:x"),
      "/apis/coordination.orch.io/v1/namespaces/orch-system/leases/l",
      "system-leader-election",
      "leader-election",
    ],
    [
      "other service accounts are workload-low",
      user("system:serviceaccount:team:x", "system:serviceaccounts"),
      "/api/v1/namespaces/team/pods",
      "service-accounts",
      "workload-low",
    ],
    ["everyone else is global-default", user("alice"), "/api/v1/namespaces/a/configmaps", "global-default", "global-default"],
  ];
  for (const [what, who, path, schema, level] of cases) {
    it(what, () => {
      const classification = control.classify(who, get(path));
      assert.equal(classification.flowSchema.name, schema);
      assert.equal(classification.priorityLevel.name, level);
    });
  }

  it("takes the lowest matchingPrecedence first, then the name", () => {
    const mine = (name: string, precedence: number): ApiObject => ({
      metadata: { name },
      spec: {
        priorityLevelConfiguration: { name: "workload-low" },
        matchingPrecedence: precedence,
        distinguisherMethod: { type: "ByUser" },
        rules: [{ subjects: [{ kind: "User", user: { name: "alice" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["/version"] }] }],
      },
    });
    const { control: ordered } = flowControl([mine("b-alice", 50), mine("a-alice", 50), mine("early", 60)]);
    assert.equal(ordered.classify(user("alice"), get("/version")).flowSchema.name, "a-alice");
    assert.equal(ordered.classify(user("bob"), get("/version")).flowSchema.name, "global-default");
  });

  it("skips a FlowSchema whose priority level does not exist (dangling) and reports it", () => {
    const dangling: ApiObject = {
      metadata: { name: "dangling" },
      spec: {
        priorityLevelConfiguration: { name: "missing" },
        matchingPrecedence: 3,
        rules: [{ subjects: [{ kind: "Group", group: { name: "*" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }],
      },
    };
    const { control: withDangling } = flowControl([dangling]);
    assert.equal(withDangling.classify(user("alice"), get("/version")).flowSchema.name, "global-default");
    assert.deepEqual([...withDangling.danglingSchemas()], ["dangling"]);
  });

  it("follows changes to the objects", () => {
    const { control: live, flowSchemas } = flowControl();
    assert.equal(live.classify(user("alice"), get("/version")).flowSchema.name, "global-default");
    flowSchemas.replace(withUid(bootstrap.mandatoryFlowSchemas));
    assert.equal(live.classify(user("alice"), get("/version")).flowSchema.name, "catch-all");
  });

  it("remembers a classification per inputs: user, groups, verb, group, resource, namespace or path", () => {
    const { control: cached, flowSchemas } = flowControl();
    const first = cached.classify(user("alice"), get("/api/v1/namespaces/a/configmaps/x"));
    // Same inputs (another object name does not matter): the very same classification object.
    assert.equal(cached.classify(user("alice"), get("/api/v1/namespaces/a/configmaps/y")), first);
    // A different user, group set or namespace is classified on its own.
    assert.notEqual(cached.classify(user("bob"), get("/api/v1/namespaces/a/configmaps/x")), first);
    const admin = cached.classify(user("alice", "system:masters"), get("/api/v1/namespaces/a/configmaps/x"));
    assert.equal(admin.flowSchema.name, "exempt", "groups are part of the key");
    const byNamespace: ApiObject = {
      metadata: { name: "by-namespace" },
      spec: {
        priorityLevelConfiguration: { name: "global-default" },
        matchingPrecedence: 50,
        distinguisherMethod: { type: "ByNamespace" },
        rules: [
          {
            subjects: [{ kind: "User", user: { name: "carol" } }],
            resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"], namespaces: ["*"] }],
          },
        ],
      },
    };
    flowSchemas.replace(withUid([...bootstrap.mandatoryFlowSchemas, ...bootstrap.suggestedFlowSchemas, byNamespace]));
    const inA = cached.classify(user("carol"), get("/api/v1/namespaces/a/configmaps/x"));
    const inB = cached.classify(user("carol"), get("/api/v1/namespaces/b/configmaps/x"));
    assert.equal(inA.flowSchema.name, "by-namespace", "a FlowSchema added after the first classifications applies");
    assert.deepEqual([inA.distinguisher, inB.distinguisher], ["a", "b"]);
    assert.notEqual(inA.hash, inB.hash, "each namespace is its own flow");
    assert.equal(cached.classify(user("carol"), get("/api/v1/namespaces/a/configmaps/x")), inA);
    assert.equal(cached.classify(user("carol"), get("/api/v1/namespaces/a/configmaps")).flowSchema.name, "global-default", "verb list is another key");
  });

  it("shares --max-requests-inflight + --max-mutating-requests-inflight by nominalConcurrencyShares", () => {
    const levels = new Map(control.priorityLevels().map((level) => [level.name, level.queueSet?.concurrencyLimit]));
    // 600 seats over 245 shares (exempt 0, catch-all 5, system 30, node-high 40, leader-election 10, workload-high 40, workload-low 100, global-default 20), rounded up.
    assert.equal(levels.get("workload-low"), Math.ceil((600 * 100) / 245));
    assert.equal(levels.get("catch-all"), Math.ceil((600 * 5) / 245));
    assert.equal(levels.get("exempt"), undefined);
  });
});

describe("shuffle sharding", () => {
  it("deals distinct queues within the deck, the same hand for the same flow", () => {
    for (const hash of [0, 1, 12345, flowHash("global-default", "alice"), 2 ** 48 - 1]) {
      const hand = dealHand(hash, 128, 6);
      assert.equal(hand.length, 6);
      assert.equal(new Set(hand).size, 6);
      for (const card of hand) assert.ok(card >= 0 && card < 128);
      assert.deepEqual(dealHand(hash, 128, 6), hand);
    }
  });

  it("spreads flows over the deck", () => {
    const used = new Set<number>();
    for (let index = 0; index < 200; index++) for (const card of dealHand(flowHash("s", `user-${index}`), 64, 4)) used.add(card);
    assert.equal(used.size, 64);
  });

  it("deals a whole small deck", () => {
    assert.deepEqual(
      [...dealHand(7, 4, 4)].sort((left, right) => left - right),
      [0, 1, 2, 3],
    );
  });
});

describe("queue set", () => {
  const never = new AbortController().signal;
  const request = { signal: never, waitLimitMs: 60_000, flow: "f", describe: { flowSchema: "s", user: "u", info: get("/version") } };

  it("Reject: a request finding every seat taken is rejected at once", async () => {
    const set = new QueueSet({ concurrencyLimit: 1 });
    const first = await set.acquire(1, request);
    assert.equal(first.kind, "dispatched");
    assert.deepEqual(await set.acquire(2, request), { kind: "rejected", reason: "concurrency-limit", waitedMs: 0 });
    if (first.kind === "dispatched") set.release(first);
    assert.equal((await set.acquire(2, request)).kind, "dispatched");
  });

  it("tryDispatch takes a free seat synchronously, and nothing when a seat is missing or a request waits", async () => {
    const set = new QueueSet({ concurrencyLimit: 2, queuing: { queues: 4, handSize: 2, queueLengthLimit: 5 } });
    const first = set.tryDispatch(1, 1);
    assert.equal(first?.kind, "dispatched");
    assert.equal(set.executing, 1);
    const wide = set.tryDispatch(2, 2);
    assert.equal(wide, undefined, "two seats do not fit in the one left");
    assert.equal(set.executing, 1, "a refused fast path takes nothing");
    const second = set.tryDispatch(2, 1);
    assert.ok(second?.kind === "dispatched");
    const waiting = set.acquire(3, request);
    assert.equal(set.waitingCount, 1);
    if (first?.kind === "dispatched") set.release(first);
    assert.equal((await waiting).kind, "dispatched", "the freed seat went to the waiting request");
    set.release(second);
    assert.equal(set.tryDispatch(4, 1)?.kind, "dispatched", "nobody waits and a seat is free again");
    const reject = new QueueSet({ concurrencyLimit: 1 });
    assert.equal(reject.tryDispatch(1, 1)?.kind, "dispatched");
    assert.equal(reject.tryDispatch(1, 1), undefined, "Reject levels: acquire gives the rejection");
  });

  it("Queue: waits for a seat, rejects past queueLengthLimit", async () => {
    const set = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } });
    const first = await set.acquire(1, request);
    const waiting = [set.acquire(1, request), set.acquire(1, request)];
    assert.deepEqual(await set.acquire(1, request), { kind: "rejected", reason: "queue-full", waitedMs: 0 });
    assert.equal(set.waitingCount, 2);
    if (first.kind === "dispatched") set.release(first);
    const second = await waiting[0];
    assert.equal(second?.kind, "dispatched");
    if (second?.kind === "dispatched") set.release(second);
    assert.equal((await waiting[1])?.kind, "dispatched");
  });

  it("rejects a request that waited past the limit, and one whose client went away", async () => {
    const set = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 4, handSize: 2, queueLengthLimit: 10 } });
    await set.acquire(1, request);
    const timedOut = await set.acquire(1, { ...request, waitLimitMs: 5 });
    assert.equal(timedOut.kind === "rejected" && timedOut.reason, "time-out");
    const gone = new AbortController();
    const pending = set.acquire(1, { ...request, signal: gone.signal });
    gone.abort();
    const cancelled = await pending;
    assert.equal(cancelled.kind === "rejected" && cancelled.reason, "cancelled");
    assert.equal(set.waitingCount, 0);
    assert.deepEqual({ ...set.counters }, { dispatched: 1, rejected: 2, timedOut: 1, cancelled: 1 });
  });

  it("serves queues in turn: a flow with many waiting requests does not hold back another flow's", async () => {
    const set = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 8, handSize: 1, queueLengthLimit: 50 } });
    const flood = 7;
    const other = [0, 1, 2, 3, 4, 5, 6, 7].find((hash) => dealHand(hash, 8, 1)[0] !== dealHand(flood, 8, 1)[0]) ?? 0;
    const done = new AbortController();
    setMaxListeners(30, done.signal);
    const local = { ...request, signal: done.signal };
    const held = await set.acquire(flood, local);
    const order: string[] = [];
    const granted: Admission[] = [];
    const track = (name: string, admission: Promise<Admission>) =>
      admission.then((result) => {
        order.push(name);
        granted.push(result);
        return result;
      });
    for (let index = 0; index < 20; index++) void track("flood", set.acquire(flood, local));
    const victim = track("other", set.acquire(other, local));
    // Release one seat at a time: the other flow's request goes within the first two dispatches.
    let current: Admission | undefined = held;
    for (let step = 0; step < 3 && current !== undefined; step++) {
      if (current.kind === "dispatched") set.release(current);
      await new Promise((resolve) => setImmediate(resolve));
      current = granted.at(-1);
    }
    assert.ok(order.slice(0, 2).includes("other"), `dispatch order: ${order.join(",")}`);
    done.abort();
    await victim;
  });
});

describe("work estimates (seats per request)", () => {
  const seats = (method: string, path: string, query: string, stored: number | undefined): number => {
    const params = new URLSearchParams(query);
    return estimateSeats(parseRequestInfo(method, path, params), params, stored);
  };
  const PODS = "/api/v1/namespaces/default/pods";

  it("a list costs one seat per 100 objects it processes, from 1 to 10", () => {
    // A consistent list (no resourceVersion) reads storage: twice the objects (or the limit).
    assert.equal(seats("GET", PODS, "", 250), 5);
    assert.equal(seats("GET", PODS, "limit=100", 250), 2);
    // From the watch cache (resourceVersion=0, or a NotOlderThan read): every stored object.
    assert.equal(seats("GET", PODS, "resourceVersion=0", 250), 3);
    assert.equal(seats("GET", PODS, "resourceVersion=0&limit=10", 250), 3, "limit is ignored by the cache");
    // From storage with a selector: stored objects plus the limit.
    assert.equal(seats("GET", PODS, "labelSelector=app%3Dweb&limit=50", 250), 3);
    assert.equal(seats("GET", PODS, "", 100_000), 10, "at most 10");
    assert.equal(seats("GET", PODS, "", 0), 1, "at least 1");
    assert.equal(seats("GET", PODS, "", undefined), 1, "not counted yet: the minimum");
  });

  it("a watch costs like a list only when it starts with its initial events; other requests take one seat", () => {
    assert.equal(seats("GET", PODS, "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", 500), 5);
    assert.equal(seats("GET", PODS, "watch=true", 500), 1);
    assert.equal(seats("GET", `${PODS}/web`, "", 500), 1);
    assert.equal(seats("POST", PODS, "", 500), 1);
    assert.equal(seats("GET", "/version", "", 500), 1);
  });
});

describe("queue set with wide requests", () => {
  const never = new AbortController().signal;
  const request = { signal: never, waitLimitMs: 60_000, flow: "f", describe: { flowSchema: "s", user: "u", info: get("/version") } };

  it("a request holds its seats; the next in turn waits until as many are free, and is not overtaken", async () => {
    const set = new QueueSet({ concurrencyLimit: 10, queuing: { queues: 1, handSize: 1, queueLengthLimit: 10 } });
    const wide = await set.acquire(1, { ...request, seats: 6 });
    assert.equal(wide.kind === "dispatched" && wide.seats, 6);
    assert.equal(set.executing, 6);
    const order: string[] = [];
    const second = set.acquire(1, { ...request, seats: 6 }).then((admission) => {
      order.push("wide");
      return admission;
    });
    const narrow = set.acquire(1, { ...request, seats: 1 }).then((admission) => {
      order.push("narrow");
      return admission;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [], "4 seats free: the 6-seat request waits, the 1-seat one behind it too");
    if (wide.kind === "dispatched") set.release(wide);
    const [secondAdmission, narrowAdmission] = await Promise.all([second, narrow]);
    assert.deepEqual(order, ["wide", "narrow"]);
    assert.equal(set.executing, 7);
    if (secondAdmission.kind === "dispatched") set.release(secondAdmission);
    if (narrowAdmission.kind === "dispatched") set.release(narrowAdmission);
    assert.equal(set.executing, 0);
  });

  it("seats are capped at the level's limit, and Reject refuses a request whose seats are not free", async () => {
    const set = new QueueSet({ concurrencyLimit: 4 });
    const capped = await set.acquire(1, { ...request, seats: 10 });
    assert.equal(capped.kind === "dispatched" && capped.seats, 4);
    if (capped.kind === "dispatched") set.release(capped);
    const one = await set.acquire(1, { ...request, seats: 1 });
    assert.equal((await set.acquire(2, { ...request, seats: 4 })).kind, "rejected");
    assert.equal((await set.acquire(2, { ...request, seats: 3 })).kind, "dispatched");
    if (one.kind === "dispatched") set.release(one);
  });
});

describe("borrowing between priority levels (lendablePercent, borrowingLimitPercent)", () => {
  const never = new AbortController().signal;
  const request = { signal: never, waitLimitMs: 60_000, flow: "f", describe: { flowSchema: "s", user: "u", info: get("/version") } };
  const limitedLevel = (name: string, limited: Record<string, unknown>): ApiObject => ({
    metadata: { name, uid: `uid-${name}` },
    spec: {
      type: "Limited",
      limited: { nominalConcurrencyShares: 10, limitResponse: { type: "Queue", queuing: { queues: 1, handSize: 1, queueLengthLimit: 50 } }, ...limited },
    },
  });
  /** Three levels of 10 nominal seats each out of 30: one lends half, one may borrow without bound, one may not borrow. */
  function levels(lenderPercent: number) {
    const control = new FlowControl({
      feeds: {
        flowSchemas: staticFeed([]),
        priorityLevels: staticFeed([
          limitedLevel("lender", { lendablePercent: lenderPercent }),
          limitedLevel("borrower", {}),
          limitedLevel("capped", { borrowingLimitPercent: 0 }),
        ]),
      },
      bootstrap,
      serverConcurrencyLimit: 30,
      metrics: NO_METRICS,
    });
    const byName = new Map(control.priorityLevels().map((level) => [level.name, level]));
    const queueSet = (name: string): QueueSet => {
      const set = byName.get(name)?.queueSet;
      assert.ok(set !== undefined, name);
      return set;
    };
    return { control, queueSet, level: (name: string) => byName.get(name) };
  }
  /** Puts 20 seats of demand on a level: 10 executing (its nominal limit), 10 waiting. */
  function demand(set: QueueSet): Promise<Admission>[] {
    return Array.from({ length: 20 }, () => set.acquire(1, request));
  }

  it("computes kube's limits: nominal from shares, lower bound without the lendable part, upper bound with the borrowing limit", () => {
    const { level } = levels(50);
    assert.deepEqual(level("lender")?.limits, { nominal: 10, min: 5, max: 40 });
    assert.deepEqual(level("borrower")?.limits, { nominal: 10, min: 10, max: 40 }, "borrowingLimitPercent unset: no bound but the server's");
    assert.deepEqual(level("capped")?.limits, { nominal: 10, min: 10, max: 10 });
  });

  it("a level with spare demand borrows the idle seats a lendablePercent level lends", async () => {
    const { control, queueSet } = levels(50);
    const borrower = queueSet("borrower");
    const pending = demand(borrower);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(borrower.executing, 10, "before an adjustment a level has its nominal seats");
    assert.equal(borrower.waitingCount, 10);
    control.adjustBorrowing();
    control.adjustBorrowing();
    // 30 seats: the capped level keeps its 10 (nothing to lend), the lender keeps its lower bound 5, the borrower gets 15.
    assert.equal(queueSet("lender").concurrencyLimit, 5);
    assert.equal(borrower.concurrencyLimit, 15);
    assert.equal(queueSet("capped").concurrencyLimit, 10);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(borrower.executing, 15, "five more of the waiting requests were dispatched on borrowed seats");
    for (const admission of await Promise.all(pending.slice(0, 15))) if (admission.kind === "dispatched") borrower.release(admission);
    for (const admission of await Promise.all(pending.slice(15))) if (admission.kind === "dispatched") borrower.release(admission);
  });

  it("a level that lends nothing (lendablePercent 0) keeps its seats from a borrower", async () => {
    const { control, queueSet } = levels(0);
    const borrower = queueSet("borrower");
    const pending = demand(borrower);
    control.adjustBorrowing();
    control.adjustBorrowing();
    assert.equal(queueSet("lender").concurrencyLimit, 10);
    assert.equal(borrower.concurrencyLimit, 10);
    for (const admission of await Promise.all(pending.slice(0, 10))) if (admission.kind === "dispatched") borrower.release(admission);
    await Promise.all(pending);
  });

  it("a level with borrowingLimitPercent: 0 cannot borrow, however much it waits; idle seats go to the others", async () => {
    const { control, queueSet } = levels(50);
    const capped = queueSet("capped");
    const pending = demand(capped);
    control.adjustBorrowing();
    control.adjustBorrowing();
    assert.equal(capped.concurrencyLimit, 10);
    assert.equal(capped.waitingCount, 10);
    assert.ok(queueSet("lender").concurrencyLimit + queueSet("borrower").concurrencyLimit >= 19, "the rest of the server's seats are shared out");
    for (const admission of await Promise.all(pending.slice(0, 10))) if (admission.kind === "dispatched") capped.release(admission);
    await Promise.all(pending);
  });

  it("shares seats back once the demand is gone", async () => {
    const { control, queueSet } = levels(50);
    const borrower = queueSet("borrower");
    const pending = demand(borrower);
    control.adjustBorrowing();
    control.adjustBorrowing();
    assert.equal(borrower.concurrencyLimit, 15);
    for (let round = 0; round < 2; round++) {
      const admissions = await Promise.all(pending.splice(0, pending.length > 10 ? 15 : pending.length));
      for (const admission of admissions) if (admission.kind === "dispatched") borrower.release(admission);
    }
    // The demand envelope decays (kube's smoothing), so the lender's share comes back over a few periods.
    for (let period = 0; period < 200; period++) control.adjustBorrowing();
    assert.ok(queueSet("lender").concurrencyLimit >= 7, `lender: ${queueSet("lender").concurrencyLimit}`);
    assert.ok(borrower.concurrencyLimit <= 13, `borrower: ${borrower.concurrencyLimit}`);
  });
});

describe("allocateConcurrency", () => {
  it("finds the fair proportion within every level's bounds", () => {
    const { allocations } = allocateConcurrency(30, [
      { lower: 5, upper: 40, target: 5 },
      { lower: 10, upper: 40, target: 20 },
      { lower: 10, upper: 10, target: 10 },
    ]);
    assert.deepEqual(
      allocations.map((value) => Math.round(value)),
      [5, 15, 10],
    );
    assert.deepEqual(
      allocateConcurrency(10, [
        { lower: 8, upper: 9, target: 1 },
        { lower: 8, upper: 9, target: 1 },
      ]).allocations,
      [8, 8],
      "lower bounds win",
    );
  });
});

describe("mutating work estimates (watchers to notify)", () => {
  const request = (method: string, path: string, query = "") => {
    const params = new URLSearchParams(query);
    return { info: parseRequestInfo(method, path, params), query: params };
  };
  const CMS = "/api/v1/namespaces/a/configmaps";

  it("counts the watches a change reaches: the resource's, its namespace's and the object's own", () => {
    const tracker = new WatchTracker();
    const forget: (() => void)[] = [];
    const watch = (path: string, query = "") => {
      const { info, query: params } = request("GET", path, `watch=true${query === "" ? "" : `&${query}`}`);
      forget.push(tracker.register(info, params));
    };
    watch("/api/v1/configmaps");
    watch(CMS);
    watch(CMS);
    watch("/api/v1/namespaces/b/configmaps");
    watch(CMS, "fieldSelector=metadata.name%3Dcm");
    watch(CMS, "fieldSelector=metadata.name%3Dother");
    watch("/api/v1/namespaces/a/secrets");
    assert.equal(tracker.interested(request("PUT", `${CMS}/cm`).info), 4, "all-namespaces, two in a, the one on cm");
    assert.equal(tracker.interested(request("POST", CMS).info), 3);
    assert.equal(tracker.interested(request("POST", "/api/v1/namespaces/b/configmaps").info), 2);
    assert.equal(tracker.interested(request("GET", `${CMS}/cm`).info), 0, "reads notify no one");
    for (const done of forget) done();
    assert.equal(tracker.interested(request("PUT", `${CMS}/cm`).info), 0, "a watch counts until its stream ends");
  });

  it("takes one final seat per 10 watchers, at most 10, held 5 ms per seat of work", () => {
    const put = request("PUT", `${CMS}/cm`).info;
    assert.deepEqual(estimateMutating(put, 9), { finalSeats: 0, additionalLatencyMs: 0 }, "fewer than 10 watchers: nothing extra");
    assert.deepEqual(estimateMutating(put, 10), { finalSeats: 1, additionalLatencyMs: 5 });
    assert.deepEqual(estimateMutating(put, 35), { finalSeats: 4, additionalLatencyMs: 5 });
    // 250 watchers: 25 seats × 5 ms of work, reshaped to 10 seats for 12.5 ms.
    assert.deepEqual(estimateMutating(put, 250), { finalSeats: 10, additionalLatencyMs: 12.5 });
    assert.deepEqual(estimateMutating(request("DELETE", `${CMS}/cm`).info, 20), { finalSeats: 2, additionalLatencyMs: 5 });
    assert.deepEqual(estimateMutating(request("GET", CMS).info, 100), { finalSeats: 0, additionalLatencyMs: 0 });
  });
});
