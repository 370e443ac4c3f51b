import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isLongRunning } from "./long-running.js";
import { parseRequestInfo } from "./request-info.js";

describe("isLongRunning() (kube's BasicLongRunningRequestCheck: the watch verb; attach, exec, proxy, log, portforward; /debug/pprof/)", () => {
  const cases: [string, string, string, boolean][] = [
    ["GET", "/api/v1/namespaces/a/pods", "watch=true", true],
    ["GET", "/api/v1/namespaces/a/pods/p", "watch=1", true],
    ["GET", "/apis/apps/v1/deployments", "watch=True", true],
    ["GET", "/api/v1/namespaces/a/pods/p/log", "", true],
    ["GET", "/api/v1/namespaces/a/pods/p/log", "follow=true", true],
    ["GET", "/api/v1/namespaces/a/pods/p/log", "follow=false&previous=true", true],
    ["POST", "/api/v1/namespaces/a/pods/p/exec", "command=ls", true],
    ["GET", "/api/v1/namespaces/a/pods/p/attach", "", true],
    ["POST", "/api/v1/namespaces/a/pods/p/portforward", "", true],
    ["GET", "/api/v1/namespaces/a/pods/p/proxy", "", true],
    ["PUT", "/api/v1/namespaces/a/pods/p:8080/proxy/some/path", "", true],
    ["GET", "/api/v1/namespaces/a/services/https:s:443/proxy/", "", true],
    ["GET", "/api/v1/nodes/n/proxy/metrics/cadvisor", "", true],
    ["GET", "/debug/pprof/profile", "seconds=30", true],
    ["GET", "/debug/pprof/", "", true],
    ["GET", "/api/v1/namespaces/a/pods", "", false],
    ["GET", "/api/v1/namespaces/a/pods/p", "", false],
    ["GET", "/api/v1/namespaces/a/pods/p/status", "", false],
    ["POST", "/api/v1/namespaces/a/pods/p/eviction", "", false],
    ["GET", "/api/v1/namespaces/a/pods/logs", "", false],
    ["GET", "/api/v1/namespaces/a/configmaps/log", "", false],
    ["GET", "/debug/pprof", "", false],
    ["GET", "/metrics", "", false],
    ["GET", "/api/v1/namespaces/a/pods", "watch=false", false],
  ];
  for (const [method, path, query, want] of cases) {
    it(`${method} ${path}${query === "" ? "" : `?${query}`} → ${want}`, () => {
      assert.equal(isLongRunning(parseRequestInfo(method, path, new URLSearchParams(query))), want);
    });
  }
});
