import { readFileSync } from "node:fs";
import { timingSafeEqual } from "node:crypto";
import type { UserInfo } from "../request/context.js";
import type { Authenticator } from "./authenticator.js";

/**
 * Parses kube's static token CSV: `token,user,uid[,"group1,group2"]` per line; blank lines and
 * `#` comments skipped. Throws with the line number on malformed input.
 */
export function parseTokenFile(text: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const fields = parseCsvLine(trimmed);
    if (fields.length < 3) throw new Error(`token file line ${index + 1}: expected token,user,uid[,groups]`);
    const [token = "", name = "", uid = "", groups = ""] = fields;
    if (token === "" || name === "") throw new Error(`token file line ${index + 1}: token and user must be non-empty`);
    if (tokens.has(token)) throw new Error(`token file line ${index + 1}: duplicate token`);
    tokens.set(token, { name, uid, groups: groups === "" ? [] : groups.split(",").map((group) => group.trim()).filter((group) => group !== "") });
  });
  return tokens;
}

function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let current = "";
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        current += '"';
        index++;
      } else if (char === '"') {
        quoted = false;
      } else {
        current += char;
      }
    } else if (char === '"') {
      quoted = true;
    } else if (char === ",") {
      fields.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  fields.push(current);
  return fields.map((field) => field.trim());
}

/** Bearer tokens from `--token-auth-file`; an unknown bearer token is rejected (401). */
export function tokenFileAuthenticator(path: string): Authenticator {
  const tokens = parseTokenFile(readFileSync(path, "utf8"));
  return {
    name: "token-file",
    async authenticate(request) {
      const header = request.headers["authorization"];
      if (header === undefined) return { kind: "none" };
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (match === null) return { kind: "none" };
      const presented = Buffer.from(match[1] ?? "");
      for (const [token, user] of tokens) {
        const expected = Buffer.from(token);
        if (expected.length === presented.length && timingSafeEqual(expected, presented)) return { kind: "ok", user };
      }
      return { kind: "rejected", reason: "invalid bearer token" };
    },
  };
}
