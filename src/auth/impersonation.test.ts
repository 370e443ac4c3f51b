import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { ApiRequest } from "../request/context.js";
import { impersonatedUser, parseImpersonation } from "./impersonation.js";

function request(rawHeaders: string[]): ApiRequest {
  return {
    method: "GET",
    path: "/api",
    query: new URLSearchParams(),
    headers: joinedHeaders(rawHeaders),
    rawHeaders,
    body: async () => Buffer.alloc(0),
    peerCertificate: undefined,
    signal: new AbortController().signal,
  };
}

describe("parseImpersonation() and impersonatedUser()", () => {
  const cases: { what: string; headers: string[]; name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }[] = [
    { what: "a user gets system:authenticated", headers: ["Impersonate-User", "bob"], name: "bob", groups: ["system:authenticated"] },
    {
      what: "repeated groups stay apart",
      headers: ["Impersonate-User", "bob", "Impersonate-Group", "a,b", "Impersonate-Group", "c"],
      name: "bob",
      groups: ["a,b", "c", "system:authenticated"],
    },
    {
      what: "system:unauthenticated is not joined by system:authenticated",
      headers: ["Impersonate-User", "bob", "Impersonate-Group", "system:unauthenticated"],
      name: "bob",
      groups: ["system:unauthenticated"],
    },
    {
      what: "anonymous gets system:unauthenticated",
      headers: ["Impersonate-User", "system:anonymous"],
      name: "system:anonymous",
      groups: ["system:unauthenticated"],
    },
    {
      what: "a service account gets its groups",
      headers: ["Impersonate-User", "system:serviceaccount:team:builder"],
      name: "system:serviceaccount:team:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
    },
    {
      what: "uid and extras (keys lower-cased and percent-decoded)",
      headers: [
        "Impersonate-User",
        "bob",
        "Impersonate-Uid",
        "u-1",
        "Impersonate-Extra-Acme.com%2FScopes",
        "view",
        "impersonate-extra-acme.com%2fscopes",
        "edit",
      ],
      name: "bob",
      groups: ["system:authenticated"],
      uid: "u-1",
      extra: { "acme.com/scopes": ["view", "edit"] },
    },
  ];
  for (const { what, headers, name, groups, uid, extra } of cases) {
    it(what, () => {
      const parsed = parseImpersonation(request(headers));
      assert.ok(parsed !== undefined);
      const user = impersonatedUser(parsed);
      assert.equal(user.name, name);
      assert.deepEqual(user.groups, groups);
      assert.equal(user.uid, uid);
      assert.deepEqual(user.extra, extra);
    });
  }

  it("is undefined without headers", () => {
    assert.equal(parseImpersonation(request(["Accept", "*/*"])), undefined);
  });

  for (const headers of [
    ["Impersonate-Group", "devs"],
    ["Impersonate-Uid", "u-1"],
    ["Impersonate-Extra-Scopes", "x"],
  ]) {
    it(`is 400 for ${headers[0]} without Impersonate-User`, () => {
      assert.throws(
        () => parseImpersonation(request(headers)),
        (error: unknown) => error instanceof ApiError && error.code === 400 && /without impersonating a user/.test(error.message),
      );
    });
  }
});

/** The lower-cased, comma-joined header map Node builds from raw headers. */
function joinedHeaders(rawHeaders: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] ?? "").toLowerCase();
    headers[name] = headers[name] === undefined ? (rawHeaders[index + 1] ?? "") : `${headers[name]}, ${rawHeaders[index + 1] ?? ""}`;
  }
  return headers;
}
