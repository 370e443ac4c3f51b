import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Storage } from "../storage/index.js";
import { SqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import type { CommandOutput } from "./commands.js";
import { openStorage } from "./compose.js";
import type { Config } from "./config.js";
import { lockDataDir } from "./data-dir.js";
import { FlagError, parseArgs } from "./flags.js";

export const MIGRATE_USAGE = `  orch-apiserver migrate --from sqlite:<data-dir> --to etcd3 --etcd-servers URL[,URL…] [server flags]
  orch-apiserver migrate --from etcd3 --to sqlite:<data-dir> --etcd-servers URL[,URL…] [server flags]
      With every server stopped, copies every stored object (and allocation claim) from one store
      into an empty other one, key for key (both use kube's layout): uids, creationTimestamps,
      managedFields and the rest of each object are kept; resourceVersions are the target's new
      revisions, so clients re-list. The etcd side takes --etcd-prefix, the TLS flags and --compat
      (which spells the stored protobuf envelopes).
`;

/** Keys copied per read of the source (one consistent revision for all of them). */
const PAGE = 500;

/** One side of a migration: a SQLite data dir or the configured etcd. */
type Side = { readonly kind: "sqlite"; readonly dataDir: string } | { readonly kind: "etcd3" };

function parseSide(flag: string, value: string | undefined): Side {
  if (value === undefined) throw new FlagError(`migrate needs --${flag} (sqlite:<data-dir> or etcd3)`);
  if (value === "etcd3") return { kind: "etcd3" };
  if (value.startsWith("sqlite:") && value.length > "sqlite:".length) return { kind: "sqlite", dataDir: resolve(value.slice("sqlite:".length)) };
  throw new FlagError(`--${flag} must be sqlite:<data-dir> or etcd3, not ${JSON.stringify(value)}`);
}

/** An opened side, and what closes it (and unlocks its data dir). */
interface OpenedSide {
  readonly storage: Storage;
  readonly label: string;
  close(): Promise<void>;
}

async function openSide(side: Side, config: Config, role: "source" | "target"): Promise<OpenedSide> {
  if (side.kind === "etcd3") {
    if (config.etcdServers.length === 0) throw new FlagError("migrate to or from etcd3 needs --etcd-servers");
    const opened = openStorage({ ...config, storageBackend: "etcd3" });
    try {
      await opened.ready();
    } catch (error) {
      await opened.storage.close();
      throw error;
    }
    return { storage: opened.storage, label: `etcd3 ${config.etcdServers.join(",")} under ${config.etcdPrefix || "/"}`, close: () => opened.storage.close() };
  }
  const file = join(side.dataDir, "store.db");
  if (role === "source" && !existsSync(file)) throw new Error(`${side.dataDir} has no store.db`);
  mkdirSync(side.dataDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(side.dataDir);
  try {
    const storage = SqliteStorage.open(file);
    return {
      storage,
      label: `sqlite:${side.dataDir}`,
      async close() {
        try {
          await storage.close();
        } finally {
          unlock();
        }
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** `migrate --from … --to …`: copies every key of the source, read at one revision, into the empty target. */
export async function migrate(argv: readonly string[], io: CommandOutput): Promise<number> {
  const rest: string[] = [];
  const sides = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const match = /^--(from|to)(?:=(.*))?$/s.exec(argv[index] ?? "");
    if (match === null) {
      rest.push(argv[index] ?? "");
      continue;
    }
    sides.set(match[1] ?? "", match[2] ?? argv[++index] ?? "");
  }
  const from = parseSide("from", sides.get("from"));
  const to = parseSide("to", sides.get("to"));
  if (from.kind === to.kind) throw new FlagError("migrate copies between SQLite and etcd3: --from and --to must differ");
  const parsed = parseArgs(rest);
  if (parsed.kind === "help") {
    io.out(MIGRATE_USAGE);
    return 0;
  }
  const source = await openSide(from, parsed.config, "source");
  try {
    const target = await openSide(to, parsed.config, "target");
    try {
      if ((await target.storage.count("")) > 0) throw new Error(`the target ${target.label} is not empty; migrate only into an empty store`);
      const { copied, revision } = await copyAll(source.storage, target.storage);
      io.out(
        `migrate: ${copied} keys copied from ${source.label} (revision ${revision}) to ${target.label} (now at revision ${target.storage.currentRevision()}); ` +
          "resourceVersions are the target's revisions: clients re-list\n",
      );
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** Copies every live key of `source` at its current revision into `target` (create: a key already there fails). */
export async function copyAll(source: Storage, target: Storage): Promise<{ readonly copied: number; readonly revision: number }> {
  let copied = 0;
  let revision = 0;
  let startAfter: string | undefined;
  for (;;) {
    const page = await source.list("", { limit: PAGE, revision, ...(startAfter === undefined ? {} : { startAfter }) });
    revision = page.revision;
    for (const item of page.items) await target.create(item.key, item.value);
    copied += page.items.length;
    const last = page.items.at(-1);
    if (page.remaining === 0 || last === undefined) return { copied, revision };
    startAfter = last.key;
  }
}
