import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { startServer, type RunningServer, type StartOptions } from "../../src/index.js";
import type { Credentials } from "./http.js";

/** An in-process server on a free port, in a temp data dir that `close` removes. */
export interface TestServer {
  readonly server: RunningServer;
  readonly dataDir: string;
  /** Admin credentials (client certificate) for raw requests. */
  readonly admin: Credentials;
  /** Stops the server and removes the data dir. Idempotent. */
  close(): Promise<void>;
}

export function makeTempDir(prefix = "orch-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = makeTempDir();
  let server: RunningServer;
  try {
    server = await startServer({ storageBackend: "memory", ...options, dataDir, securePort: 0 });
  } catch (error) {
    removeDir(dataDir);
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    server,
    dataDir,
    admin: { url: server.url, ca: server.caCertificate, cert: server.adminCertificate, key: server.adminKey },
    close() {
      closed ??= server.stop().finally(() => removeDir(dataDir));
      return closed;
    },
  };
}

/**
 * Starts a server in `before` and closes it in `after` of the enclosing describe; the returned
 * function gives the running server inside tests.
 */
export function useTestServer(options: StartOptions = {}): () => TestServer {
  let running: TestServer | undefined;
  before(async () => {
    running = await startTestServer(options);
  });
  after(async () => {
    await running?.close();
  });
  return () => {
    if (running === undefined) throw new Error("the test server is not running (did `before` fail?)");
    return running;
  };
}
