// Start-up loads only what a default server uses: the packages of rare features (gRPC and
// protobufjs for etcd and KMS, the OpenTelemetry SDK for tracing, x509 for certificate signing)
// are loaded when that feature is first used (issue #21: start-up).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { makeTempDir, removeDir } from "./helpers/server.js";

const START = fileURLToPath(new URL("../src/cli/start.js", import.meta.url));

/** Starts a server in a fresh node process, then prints the CommonJS modules loaded, one path a line. */
function modulesLoadedByAServer(dataDir: string, storageBackend: string): string[] {
  const script = `
    import { createRequire } from "node:module";
    const { startServer } = await import(${JSON.stringify(START)});
    const server = await startServer({ dataDir: ${JSON.stringify(dataDir)}, securePort: 0, storageBackend: ${JSON.stringify(storageBackend)} });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    await server.stop();
    process.stdout.write(loaded.join("\\n"));
  `;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 120_000 });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split("\n");
}

describe("start-up module loading", () => {
  it("a server on sqlite with its certificates in the data dir loads neither gRPC, protobufjs, the tracing SDK, the x509 library, undici, yaml nor tweetnacl", () => {
    const dir = makeTempDir();
    try {
      // The first start generates the certificates (with the x509 library); the second finds them.
      const first = modulesLoadedByAServer(dir, "sqlite");
      assert.ok(
        first.some((path) => path.includes("/@peculiar/x509/")),
        "the first start generates certificates with @peculiar/x509",
      );
      const loaded = modulesLoadedByAServer(dir, "sqlite");
      // The server ran: its store's driver is among the loaded modules.
      assert.ok(
        loaded.some((path) => path.includes("/better-sqlite3/")),
        "better-sqlite3 should be loaded",
      );
      for (const rare of ["/@grpc/grpc-js/", "/protobufjs/", "/@opentelemetry/sdk-trace-base/", "/@peculiar/x509/", "/undici/", "/yaml/", "/tweetnacl/"]) {
        const found = loaded.filter((path) => path.includes(rare));
        assert.deepEqual(found, [], `${rare} was loaded at start-up`);
      }
    } finally {
      removeDir(dir);
    }
  });
});
