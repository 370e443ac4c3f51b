import assert from "node:assert/strict";
import { test } from "node:test";
import { unsafePathPart } from "./http-server.js";

test("unsafePathPart() finds what URL parsing would rewrite and passes ordinary paths", () => {
  for (const path of [
    "/api/v1/namespaces/a/../b/secrets/db",
    "/api/v1/namespaces/a/configmaps/%2E%2E",
    "/api/v1/namespaces/a/configmaps/%2e.",
    "/api/v1/namespaces/a/./configmaps",
    "/api/v1/namespaces/a/.\t./b",
    "/api/v1/namespaces/a\\..\\b/secrets",
  ]) {
    assert.notEqual(unsafePathPart(path), undefined, path);
  }
  for (const path of [
    "/api/v1/namespaces/a/configmaps/x..y",
    "/api/v1/namespaces/a/configmaps/.hidden",
    "/api/v1/pods?labelSelector=a%3D..",
    "/healthz",
    "/",
  ]) {
    assert.equal(unsafePathPart(path), undefined, path);
  }
});
