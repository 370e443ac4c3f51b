import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join, resolve } from "node:path";
import { SqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { SILENT_LOGGER } from "../util/logger.js";
import { openStorage } from "./compose.js";
import { lockDataDir, StartupError } from "./data-dir.js";
import { applyEncryption } from "./encryption.js";
import { FlagError, parseArgs } from "./flags.js";
import { readKubeconfigCredentials } from "./kubeconfig.js";
import { MIGRATE_USAGE, migrate } from "./migrate.js";

/** The store file inside a data dir. */
const STORE_FILE = "store.db";

export const COMMAND_USAGE = `Commands:
  orch-apiserver snapshot save <file> [--data-dir DIR] [--kubeconfig FILE]
      A consistent copy of the SQLite store. Online (through GET /snapshot with the data dir's admin
      kubeconfig, or --kubeconfig) when a server runs on DIR, else straight from the file.
  orch-apiserver snapshot restore <file> --data-dir DIR
      Checks the snapshot (integrity, schema) and installs it as DIR's store; DIR must have none.
  orch-apiserver encryption rewrite [server flags]
      With the server stopped, re-encrypts every stored value that the --encryption-provider-config's
      first provider would write differently (older key, other provider, plain text). Online, use
      kubectl get secrets -A -o json | kubectl replace -f -
${MIGRATE_USAGE}`;

/** Parses `<positional> --flag value …` for the small commands: one positional, the named flags only. */
function commandArgs(argv: readonly string[], flags: readonly string[]): { positional: string | undefined; values: Map<string, string> } {
  const values = new Map<string, string>();
  let positional: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (match === null) {
      if (positional !== undefined) throw new FlagError(`unexpected argument "${arg}"`);
      positional = arg;
      continue;
    }
    const name = match[1] ?? "";
    if (!flags.includes(name)) throw new FlagError(`unknown flag: --${name}`);
    const value = match[2] ?? argv[++index];
    if (value === undefined) throw new FlagError(`flag needs an argument: --${name}`);
    values.set(name, value);
  }
  return { positional, values };
}

/** Where a command writes its report and its errors (the process's stdout and stderr by default). */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

const PROCESS_OUTPUT: CommandOutput = { out: (text) => void process.stdout.write(text), err: (text) => void process.stderr.write(text) };

/** Runs `snapshot …`, `encryption …` or `migrate …`; returns the exit code, or undefined when argv is not a command. */
export async function runCommand(argv: readonly string[], io: CommandOutput = PROCESS_OUTPUT): Promise<number | undefined> {
  const [command, action, ...rest] = argv;
  if (command !== "snapshot" && command !== "encryption" && command !== "migrate") return undefined;
  try {
    if (command === "migrate") return await migrate(argv.slice(1), io);
    if (command === "snapshot" && action === "save") return await snapshotSave(rest, io);
    if (command === "snapshot" && action === "restore") return snapshotRestore(rest, io);
    if (command === "encryption" && action === "rewrite") return await encryptionRewrite(rest, io);
    throw new FlagError(`unknown command "${[command, action].filter((word) => word !== undefined).join(" ")}"`);
  } catch (error) {
    if (error instanceof FlagError) {
      io.err(`Error: ${error.message}\n${COMMAND_USAGE}`);
      return 2;
    }
    io.err(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function snapshotSave(argv: readonly string[], io: CommandOutput): Promise<number> {
  const { positional: file, values } = commandArgs(argv, ["data-dir", "kubeconfig"]);
  if (file === undefined) throw new FlagError("snapshot save needs the file to write");
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`${target} exists; snapshot save does not overwrite`);
  const dataDir = resolve(values.get("data-dir") ?? ".orch");
  const kubeconfig = values.get("kubeconfig");
  let unlock: (() => void) | undefined;
  if (kubeconfig === undefined) {
    try {
      unlock = lockDataDir(dataDir);
    } catch (error) {
      if (!(error instanceof StartupError)) throw error;
    }
  }
  const partial = `${target}.part`;
  try {
    if (unlock !== undefined) {
      // No server on the data dir: back the file up directly.
      if (!existsSync(join(dataDir, STORE_FILE))) throw new Error(`${dataDir} has no ${STORE_FILE}`);
      const store = SqliteStorage.open(join(dataDir, STORE_FILE));
      try {
        await store.backup(partial);
      } finally {
        await store.close();
      }
    } else {
      writeFileSync(partial, await fetchSnapshot(kubeconfig ?? join(dataDir, "admin.kubeconfig")));
    }
    const facts = SqliteStorage.inspect(partial);
    renameSync(partial, target);
    io.out(`snapshot saved to ${target}: revision ${facts.revision}, ${facts.keys} keys (${unlock === undefined ? "online" : "offline"})\n`);
    return 0;
  } finally {
    rmSync(partial, { force: true });
    unlock?.();
  }
}

/** GET /snapshot from the running server with the kubeconfig's client certificate. */
function fetchSnapshot(kubeconfigPath: string): Promise<Buffer> {
  const credentials = readKubeconfigCredentials(readFileSync(kubeconfigPath, "utf8"));
  return new Promise((resolvePromise, reject) => {
    const call = request(
      new URL("/snapshot", credentials.server),
      { method: "GET", ca: credentials.caPem, cert: credentials.clientCertificatePem, key: credentials.clientKeyPem },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const body = Buffer.concat(chunks);
          if (response.statusCode === 200) resolvePromise(body);
          else reject(new Error(`GET /snapshot: ${response.statusCode ?? 0} ${body.toString("utf8").slice(0, 500)}`));
        });
        response.on("error", reject);
      },
    );
    call.on("error", reject);
    call.end();
  });
}

function snapshotRestore(argv: readonly string[], io: CommandOutput): number {
  const { positional: file, values } = commandArgs(argv, ["data-dir"]);
  const dataDirFlag = values.get("data-dir");
  if (file === undefined || dataDirFlag === undefined) throw new FlagError("snapshot restore needs the snapshot file and --data-dir");
  const dataDir = resolve(dataDirFlag);
  const facts = SqliteStorage.inspect(resolve(file));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(dataDir);
  try {
    const store = join(dataDir, STORE_FILE);
    if (existsSync(store)) throw new Error(`${store} exists; restore into a data dir without a store (move the old one aside)`);
    copyFileSync(resolve(file), `${store}.restoring`);
    renameSync(`${store}.restoring`, store);
    io.out(`restored ${file} into ${dataDir}: revision ${facts.revision}, ${facts.keys} keys\n`);
    return 0;
  } finally {
    unlock();
  }
}

async function encryptionRewrite(argv: readonly string[], io: CommandOutput): Promise<number> {
  const parsed = parseArgs(argv);
  if (parsed.kind === "help") {
    io.out(COMMAND_USAGE);
    return 0;
  }
  const config = { ...parsed.config, dataDir: resolve(parsed.config.dataDir) };
  if (config.encryptionProviderConfig === undefined) throw new FlagError("encryption rewrite needs --encryption-provider-config");
  const unlock = config.storageBackend === "sqlite" ? lockDataDir(config.dataDir) : () => {};
  try {
    const opened = openStorage(config);
    const encryption = applyEncryption(opened.storage, config, SILENT_LOGGER);
    try {
      await opened.ready();
      const report = await encryption.rewrite(["/"]);
      io.out(`encryption rewrite: ${report.visited} keys read, ${report.rewritten} written again with the first provider\n`);
      return 0;
    } finally {
      encryption.stop();
      await opened.storage.close();
    }
  } finally {
    unlock();
  }
}
