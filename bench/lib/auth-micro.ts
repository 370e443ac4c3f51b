/**
 * In-process cost of authenticating one request with each credential, through the same
 * authenticator union the server builds from its flags (`loadCredentials`), on the files of a
 * server's data dir. The service account and its objects come from a map, as the watch cache
 * serves them; the client certificate's verdict is cached per connection, as on a real socket.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ApiObject } from "../../src/api/object.js";
import { ORCH_PROFILE } from "../../src/api/profile.js";
import { defaultConfig } from "../../src/cli/flags.js";
import { loadCredentials } from "../../src/cli/credentials.js";
import type { ApiRequest, PeerCertificate } from "../../src/request/context.js";
import { SILENT_LOGGER } from "../../src/util/logger.js";
import type { Credentials } from "./client.js";

export interface MicroResult {
  readonly credential: string;
  readonly microsecondsPerRequest: number;
}

export async function measureAuthentication(options: {
  readonly dataDir: string;
  readonly tokenFile: string;
  readonly staticToken: string;
  readonly serviceAccountToken: string;
  readonly serviceAccountUid: string;
  readonly admin: Credentials;
  readonly iterations: number;
}): Promise<MicroResult[]> {
  const pki = join(options.dataDir, "pki");
  const account: ApiObject = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "bench", namespace: "default", uid: options.serviceAccountUid } };
  const credentials = loadCredentials({
    config: { ...defaultConfig(), tokenAuthFile: options.tokenFile },
    profile: ORCH_PROFILE,
    logger: SILENT_LOGGER,
    generated: {
      ca: readFileSync(join(pki, "ca.crt"), "utf8"),
      serving: { certificate: readFileSync(join(pki, "serving.crt"), "utf8"), key: readFileSync(join(pki, "serving.key"), "utf8") },
      serviceAccount: { keyPath: join(pki, "sa.key"), publicKeyPath: join(pki, "sa.pub") },
    },
  });
  const { authenticator } = credentials.authentication({
    read: async (plural, namespace, name) =>
      plural === "serviceaccounts" && namespace === "default" && name === "bench" ? { revision: 1, object: () => account } : undefined,
  });
  const leaf = new X509Certificate(options.admin.cert ?? "");
  const peer: PeerCertificate = { commonName: "orch-admin", organizations: ["system:masters"], chain: [leaf.raw, new X509Certificate(options.admin.ca).raw] };
  const signal = new AbortController().signal;
  /** A new request each time, with its header decoded from bytes as the HTTP parser does: no string hash is reused. */
  const request =
    (authorization: Buffer | undefined, peerCertificate?: PeerCertificate): (() => ApiRequest) =>
    () => ({
      method: "GET",
      path: "/api/v1/namespaces/default/configmaps/x",
      query: new URLSearchParams(),
      headers: {
        accept: "application/json",
        "user-agent": "orch-bench/0.1",
        host: "127.0.0.1",
        ...(authorization === undefined ? {} : { authorization: authorization.toString("latin1") }),
      },
      body: async () => Buffer.alloc(0),
      peerCertificate,
      signal,
    });
  const cases: [string, () => ApiRequest][] = [
    ["client certificate", request(undefined, peer)],
    ["static token", request(Buffer.from(`Bearer ${options.staticToken}`))],
    ["service-account token", request(Buffer.from(`Bearer ${options.serviceAccountToken}`))],
  ];
  const results: MicroResult[] = [];
  for (const [credential, sample] of cases) {
    const once = async (): Promise<void> => {
      const result = await authenticator.authenticate(sample());
      if (result.kind !== "ok") throw new Error(`${credential}: ${result.kind === "rejected" ? result.reason : "no credential"}`);
    };
    for (let index = 0; index < 2000; index++) await once();
    const started = performance.now();
    for (let index = 0; index < options.iterations; index++) await once();
    results.push({ credential, microsecondsPerRequest: ((performance.now() - started) * 1000) / options.iterations });
  }
  credentials.close();
  return results;
}
