import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { waitFor } from "../../test/helpers/wait.js";
import { watchFiles } from "./file-watcher.js";

/** No safety look and no polling for an hour: whatever is seen here came from the directory events. */
const EVENTS_ONLY = { resyncMs: 3_600_000, pollMs: 3_600_000 };

describe("watchFiles: event-driven", () => {
  const root = mkdtempSync(join(tmpdir(), "orch-file-watcher-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  function follow(paths: string[]): { changes: string[][]; stop(): void } {
    const changes: string[][] = [];
    const watcher = watchFiles(paths, (changed) => changes.push([...changed]), EVENTS_ONLY);
    return { changes, stop: () => watcher.stop() };
  }

  it("sees an in-place write and a rename into place, and reports only the file that changed", async () => {
    const a = join(root, "a.pem");
    const b = join(root, "b.pem");
    writeFileSync(a, "one");
    writeFileSync(b, "one");
    const watched = follow([a, b]);
    try {
      writeFileSync(a, "two, longer");
      await waitFor(() => watched.changes.length > 0, { what: "the in-place write" });
      assert.deepEqual(watched.changes.flat(), [a]);
      writeFileSync(join(root, "b.tmp"), "replaced");
      renameSync(join(root, "b.tmp"), b);
      await waitFor(() => watched.changes.flat().includes(b), { what: "the rename into place" });
    } finally {
      watched.stop();
    }
  });

  it("sees a Kubernetes secret volume's symlink swap (..data → a new directory)", async () => {
    const volume = join(root, "volume");
    mkdirSync(join(volume, "..v1"), { recursive: true });
    mkdirSync(join(volume, "..v2"));
    writeFileSync(join(volume, "..v1", "tls.crt"), "first");
    writeFileSync(join(volume, "..v2", "tls.crt"), "second, longer");
    symlinkSync("..v1", join(volume, "..data"));
    symlinkSync(join("..data", "tls.crt"), join(volume, "tls.crt"));
    const path = join(volume, "tls.crt");
    const watched = follow([path]);
    try {
      symlinkSync("..v2", join(volume, "..data.tmp"));
      renameSync(join(volume, "..data.tmp"), join(volume, "..data"));
      await waitFor(() => watched.changes.flat().includes(path), { what: "the swap" });
    } finally {
      watched.stop();
    }
  });

  it("sees a file appear in a directory created after the watch began (polling until it can watch)", async () => {
    const later = join(root, "later");
    const path = join(later, "key.pem");
    const changes: string[][] = [];
    const watcher = watchFiles([path], (changed) => changes.push([...changed]), { resyncMs: 3_600_000, pollMs: 20 });
    try {
      mkdirSync(later);
      writeFileSync(path, "key");
      await waitFor(() => changes.flat().includes(path), { what: "the new file" });
    } finally {
      watcher.stop();
    }
  });
});
