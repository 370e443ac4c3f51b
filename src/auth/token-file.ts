import type { UserInfo } from "../request/context.js";
import type { TokenAuthenticator } from "./token.js";

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
    tokens.set(token, {
      name,
      uid,
      groups:
        groups === ""
          ? []
          : groups
              .split(",")
              .map((group) => group.trim())
              .filter((group) => group !== ""),
    });
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

const lengths = new WeakMap<ReadonlyMap<string, UserInfo>, ReadonlySet<number>>();

function lengthsOf(tokens: ReadonlyMap<string, UserInfo>): ReadonlySet<number> {
  let known = lengths.get(tokens);
  if (known === undefined) {
    known = new Set([...tokens.keys()].map((token) => token.length));
    lengths.set(tokens, known);
  }
  return known;
}

/**
 * Static bearer tokens (`--token-auth-file`). `tokens` is read on every call, so a reloaded
 * file takes effect at once. An unknown token is `none` (the bearer authenticator makes a token
 * nobody accepts a 401).
 */
export function tokenFileAuthenticator(tokens: () => ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  return {
    name: "token-file",
    async authenticateToken(token) {
      // A map lookup, as kube's token file does (hashing the token first would cost more than
      // the rest of authentication). Tokens of a length no static token has (service-account
      // JWTs) are passed over without hashing a kilobyte of string.
      const current = tokens();
      const user = lengthsOf(current).has(token.length) ? current.get(token) : undefined;
      return user === undefined ? { kind: "none" } : { kind: "ok", user, audiences: [] };
    },
  };
}
