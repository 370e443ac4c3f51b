import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { backupName, logBackend } from "./log-backend.js";
import type { AuditEvent } from "./event.js";

const directory = mkdtempSync(join(tmpdir(), "audit-log-"));
after(() => rmSync(directory, { recursive: true, force: true }));

function event(id: number): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.orch.io/v1",
    level: "Metadata",
    auditID: `id-${id}`,
    stage: "ResponseComplete",
    requestURI: "/api/v1/pods",
    verb: "list",
    user: { username: "alice" },
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
  };
}

const LINE = Buffer.byteLength(`${JSON.stringify(event(10))}\n`);

describe("logBackend()", () => {
  it("writes one JSON event per line, after the call returns", async () => {
    const path = join(directory, "plain", "audit.log");
    const backend = logBackend({ path });
    backend.processEvents([event(1), event(2)]);
    await backend.shutdown();
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as AuditEvent).auditID),
      ["id-1", "id-2"],
    );
  });

  it("rotates by size into time-stamped backups and keeps maxBackups of them", async () => {
    const folder = join(directory, "rotate");
    const path = join(folder, "audit.log");
    let clock = Date.parse("2026-03-01T10:00:00.000Z");
    const backend = logBackend({ path, maxBytes: LINE * 3, maxBackups: 2, now: () => clock });
    for (let id = 10; id < 20; id++) {
      backend.processEvents([event(id)]);
      clock += 1000;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await backend.shutdown();
    const files = readdirSync(folder).sort();
    assert.equal(files.length, 3, files.join(" "));
    assert.ok(files.includes("audit.log"));
    for (const file of files) assert.ok(readFileSync(join(folder, file)).length <= LINE * 3, file);
    // Ten events, three per file: the current file has the last one, the two newest backups the six before it.
    assert.equal(readFileSync(path, "utf8").trimEnd().split("\n").length, 1);
    assert.deepEqual(files, ["audit-2026-03-01T10-00-07.000.log", "audit-2026-03-01T10-00-10.000.log", "audit.log"]);
  });

  it("prunes backups older than maxAgeDays", async () => {
    const folder = join(directory, "age");
    const path = join(folder, "audit.log");
    const now = Date.parse("2026-03-10T00:00:00.000Z");
    const backend = logBackend({ path, maxBytes: LINE, maxAgeDays: 2, now: () => now });
    backend.processEvents([event(10)]);
    await new Promise((resolve) => setImmediate(resolve));
    const old = backupName(path, Date.parse("2026-03-01T00:00:00.000Z"));
    writeFileSync(old, "old\n");
    backend.processEvents([event(11)]);
    await backend.shutdown();
    const files = readdirSync(folder).sort();
    assert.deepEqual(files, ["audit-2026-03-10T00-00-00.000.log", "audit.log"]);
  });
});
