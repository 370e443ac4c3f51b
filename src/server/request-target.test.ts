import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { requestTarget, unsafePathPart } from "./http-server.js";

/** What the listener used to compute with the URL parser, and still does off the plain path. */
type Parsed = { pathname: string; query: [string, string][] } | { error: string };

function byUrlParser(target: string): Parsed {
  try {
    const url = new URL(target, "https://localhost");
    return { pathname: url.pathname, query: [...url.searchParams] };
  } catch (error) {
    return { error: String(error) };
  }
}

function byRequestTarget(target: string): Parsed {
  try {
    const parsed = requestTarget(target);
    return { pathname: parsed.pathname, query: [...parsed.query] };
  } catch (error) {
    return { error: String(error) };
  }
}

/** Characters a target may hold, the awkward ones (percent signs, "#", "?", spaces, controls, non-ASCII, "//", dots) over-represented. */
const character = fc.oneof(
  fc.constantFrom(..."/?#&=+%.:;@!$'()*,~-_[]{}|^`<>\"\\ \t\n\r\u0000\u007f"),
  fc.constantFrom("%2e", "%2E", "%2f", "%20", "%zz", "%", "//", "/..", "/.", "é", "\u2603"),
  fc.stringMatching(/^[a-z0-9]{1,6}$/),
);
const target = fc.array(character, { maxLength: 24 }).map((parts) => `/${parts.join("")}`);

test("requestTarget() gives the path and query the URL parser gives, for any target", () => {
  fc.assert(
    fc.property(target, (raw) => {
      assert.deepEqual(byRequestTarget(raw), byUrlParser(raw), raw);
    }),
    { numRuns: 5000 },
  );
  for (const raw of [
    "/api/v1/namespaces/default/configmaps?limit=500&continue=eyJydiI6MTIzfQ%3D%3D",
    "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb%2Ctier+in+(a,b)&watch=1",
    "/apis/apps/v1/deployments?fieldSelector=metadata.name=x#fragment",
    "//evil.example/api",
    "/a b?x=1 2",
    "/api?x=\"quoted\"&y='single'",
    "/",
    "/?",
    "/path?",
    // A second "?" opening the query is part of the first key ("?watch"), not dropped.
    "/api/v1/pods??watch=true",
    "/??",
  ]) {
    assert.deepEqual(byRequestTarget(raw), byUrlParser(raw), raw);
  }
});

test("unsafePathPart() answers as its full check does, for any target", () => {
  // The check as it was, without the one-scan pre-filter.
  const full = (rawUrl: string): string | undefined => {
    const path = rawUrl.split("?", 1)[0] ?? "";
    if (path.includes("\\")) return "backslashes";
    for (const segment of path.replace(/[\t\n\r]/g, "").split("/")) {
      const plain = segment.replace(/%2e/gi, ".");
      if (plain === "." || plain === "..") return `"${segment}" path segments`;
    }
    return undefined;
  };
  fc.assert(
    fc.property(target, (raw) => {
      assert.equal(unsafePathPart(raw), full(raw), raw);
    }),
    { numRuns: 5000 },
  );
});
