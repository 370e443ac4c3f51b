import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { UserInfo } from "../../request/context.js";
import { parseRequestInfo } from "../../request/request-info.js";
import { SeatDemand } from "./borrowing.js";
import { ClassificationMemo } from "./classification-memo.js";

const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups: [...groups, "system:authenticated"] });
const request = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());

describe("ClassificationMemo", () => {
  it("finds a value by user name and group content, verb, namespace, API group, resource and subresource — not the object name", () => {
    const memo = new ClassificationMemo<string>(100);
    memo.remember(user("alice", "dev"), request("GET", "/api/v1/namespaces/a/configmaps/x"), "first");
    // A new user object with the same groups (authenticators may make one per request), another object name.
    assert.equal(memo.find(user("alice", "dev"), request("GET", "/api/v1/namespaces/a/configmaps/y")), "first");
    const misses: [UserInfo, string, string][] = [
      [user("bob", "dev"), "GET", "/api/v1/namespaces/a/configmaps/x"],
      [user("alice", "ops"), "GET", "/api/v1/namespaces/a/configmaps/x"],
      [user("alice"), "GET", "/api/v1/namespaces/a/configmaps/x"],
      [user("alice", "dev"), "DELETE", "/api/v1/namespaces/a/configmaps/x"],
      [user("alice", "dev"), "GET", "/api/v1/namespaces/b/configmaps/x"],
      [user("alice", "dev"), "GET", "/apis/example.io/v1/namespaces/a/configmaps/x"],
      [user("alice", "dev"), "GET", "/api/v1/namespaces/a/secrets/x"],
      [user("alice", "dev"), "GET", "/api/v1/namespaces/a/configmaps/x/status"],
      [user("alice", "dev"), "GET", "/api/v1/configmaps"],
    ];
    for (const [who, method, path] of misses)
      assert.equal(memo.find(who, request(method, path)), undefined, `${who.name} ${who.groups.join(",")} ${method} ${path}`);
  });

  it("finds non-resource requests by verb and path", () => {
    const memo = new ClassificationMemo<string>(100);
    memo.remember(user("alice"), request("GET", "/version"), "version");
    assert.equal(memo.find(user("alice"), request("GET", "/version")), "version");
    assert.equal(memo.find(user("alice"), request("POST", "/version")), undefined);
    assert.equal(memo.find(user("alice"), request("GET", "/healthz")), undefined);
  });

  it("keeps several group sets of one user apart, and never answers one set's value for another", () => {
    const memo = new ClassificationMemo<string>(1000);
    const sets = Array.from({ length: 12 }, (_, index) => `group-${index}`);
    for (const group of sets) memo.remember(user("alice", group), request("GET", "/version"), group);
    for (const group of sets) {
      const found = memo.find(user("alice", group), request("GET", "/version"));
      // The oldest sets past the per-user bound are forgotten; the others answer their own value.
      assert.ok(found === undefined || found === group, `${group}: ${found}`);
    }
    assert.equal(memo.find(user("alice", "group-11"), request("GET", "/version")), "group-11");
  });

  it("forgets everything when full, then remembers again", () => {
    const memo = new ClassificationMemo<number>(3);
    for (let index = 0; index < 3; index++) memo.remember(user(`user-${index}`), request("GET", "/version"), index);
    assert.equal(memo.find(user("user-0"), request("GET", "/version")), 0);
    memo.remember(user("user-3"), request("GET", "/version"), 3);
    assert.equal(memo.find(user("user-0"), request("GET", "/version")), undefined);
    assert.equal(memo.find(user("user-3"), request("GET", "/version")), 3);
    memo.clear();
    assert.equal(memo.find(user("user-3"), request("GET", "/version")), undefined);
  });
});

describe("SeatDemand with the caller's clock readings", () => {
  it("integrates over the times it is given, reading its own clock only when given none", () => {
    let clockReads = 0;
    let clock = 0;
    const demand = new SeatDemand(() => {
      clockReads++;
      return clock;
    });
    const readsAtStart = clockReads;
    demand.set(2, 0);
    demand.set(0, 10);
    assert.equal(clockReads, readsAtStart, "no clock read when the caller passes the time");
    clock = 20;
    // Two seats for 10 of 20 time units: average 1, deviation 1, peak 2.
    assert.deepEqual(demand.take(), { average: 1, deviation: 1, highWatermark: 2 });
  });
});
