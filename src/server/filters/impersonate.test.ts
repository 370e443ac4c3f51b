import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../api/errors.js";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import type { ApiRequest, RequestContext, UserInfo } from "../../request/context.js";
import { impersonateFilter } from "./impersonate.js";

const GROUP = "authentication.orch.io";

/** Allows what `allowed` lists as `resource/name`, records every question. */
function recordingAuthorizer(allowed: readonly string[]): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    name: "test",
    asked,
    async authorize(_user, attributes) {
      asked.push(attributes);
      if (attributes.kind !== "resource") return { kind: "no-opinion", reason: "" };
      const key = `${attributes.namespace === "" ? "" : `${attributes.namespace}/`}${attributes.resource}${attributes.subresource === "" ? "" : `/${attributes.subresource}`}/${attributes.name}`;
      return allowed.includes(key) ? { kind: "allow", reason: "" } : { kind: "no-opinion", reason: "" };
    },
  };
}

async function run(authorizer: Authorizer, rawHeaders: string[]): Promise<UserInfo> {
  const request: ApiRequest = {
    method: "GET",
    path: "/api",
    query: new URLSearchParams(),
    headers: joinedHeaders(rawHeaders),
    rawHeaders,
    body: async () => Buffer.alloc(0),
    peerCertificate: undefined,
    signal: new AbortController().signal,
  };
  const context: RequestContext = { request, warnings: [], user: { name: "alice", groups: ["devs", "system:authenticated"] } };
  let seen: UserInfo | undefined;
  await impersonateFilter(authorizer, { authenticationGroup: GROUP })(async (next) => {
    seen = next.user;
    return { status: 200, headers: {}, body: "" };
  })(context);
  if (seen === undefined) throw new Error("the chain did not continue");
  return seen;
}

describe("impersonateFilter()", () => {
  it("asks for impersonate on the user, each group, each extra value and the uid (kube's order), then acts as them", async () => {
    const authorizer = recordingAuthorizer(["users/bob", "groups/ops", `uids/u-9`, "userextras/scopes/view"]);
    const user = await run(authorizer, ["Impersonate-User", "bob", "Impersonate-Group", "ops", "Impersonate-Uid", "u-9", "Impersonate-Extra-Scopes", "view"]);
    assert.deepEqual(user, { name: "bob", groups: ["ops", "system:authenticated"], uid: "u-9", extra: { scopes: ["view"] } });
    assert.deepEqual(
      authorizer.asked.map((attributes) =>
        attributes.kind === "resource" ? [attributes.verb, attributes.group, attributes.resource, attributes.subresource, attributes.name] : [],
      ),
      [
        ["impersonate", "", "users", "", "bob"],
        ["impersonate", "", "groups", "", "ops"],
        ["impersonate", GROUP, "userextras", "scopes", "view"],
        ["impersonate", GROUP, "uids", "", "u-9"],
      ],
    );
  });

  it("checks a service account as serviceaccounts in its namespace", async () => {
    const authorizer = recordingAuthorizer(["team/serviceaccounts/builder"]);
    const user = await run(authorizer, ["Impersonate-User", "system:serviceaccount:team:builder"]);
    assert.equal(user.name, "system:serviceaccount:team:builder");
  });

  it("is 403 with kube's message when one check is refused (resourceNames decide per name)", async () => {
    const authorizer = recordingAuthorizer(["users/bob", "groups/ops"]);
    await assert.rejects(run(authorizer, ["Impersonate-User", "bob", "Impersonate-Group", "ops", "Impersonate-Group", "system:masters"]), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 403);
      assert.equal(
        error.message,
        'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      );
      return true;
    });
  });

  it("adds the authorizers' reason to the 403, as kube does", async () => {
    const authorizer: Authorizer = {
      name: "test",
      authorize: async () => ({ kind: "no-opinion", reason: 'RBAC: role.rbac.authorization.orch.io "gone" not found' }),
    };
    await assert.rejects(run(authorizer, ["Impersonate-User", "bob"]), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(
        error.message,
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: RBAC: role.rbac.authorization.orch.io "gone" not found',
      );
      return true;
    });
  });

  it("leaves requests without impersonation headers alone", async () => {
    const authorizer = recordingAuthorizer([]);
    assert.equal((await run(authorizer, [])).name, "alice");
    assert.equal(authorizer.asked.length, 0);
  });
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
