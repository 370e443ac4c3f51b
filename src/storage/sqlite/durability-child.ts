/**
 * Child process for the kill -9 durability test (sqlite-storage.test.ts):
 *   node durability-child.js <db path> <writers>
 * Writes /durable/<writer>/<n> keys forever from concurrent writers and prints each key
 * once its create has resolved (i.e. was acknowledged as durable), one per line.
 */
import { SqliteStorage } from "./sqlite-storage.js";

const [path, writersArg] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: durability-child.js <db path> [writers]");
const storage = SqliteStorage.open(path);
const writers = Number(writersArg ?? "16");

async function writer(id: number): Promise<void> {
  for (let n = 0; ; n++) {
    const key = `/durable/${id}/${n}`;
    const revision = await storage.create(key, JSON.stringify({ id, n }));
    process.stdout.write(`${key} ${revision}\n`);
  }
}

process.stdout.write("ready\n");
await Promise.all(Array.from({ length: writers }, (_, id) => writer(id)));
