import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { backupName, logBackend } from "./log-backend.js";
import { AuditStoreError, type AuditEvent } from "./event.js";

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

/** Events 10 to 19, one per turn a second apart, to a log of three lines per file keeping two backups; then shut down. */
async function writeTenRotating(path: string, options: { compress?: boolean }): Promise<void> {
  let clock = Date.parse("2026-03-01T10:00:00.000Z");
  const backend = logBackend({ path, maxBytes: LINE * 3, maxBackups: 2, ...options, now: () => clock });
  for (let id = 10; id < 20; id++) {
    backend.processEvents([event(id)]);
    clock += 1000;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await backend.shutdown();
}

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
    await writeTenRotating(path, {});
    const files = readdirSync(folder).sort();
    assert.equal(files.length, 3, files.join(" "));
    assert.ok(files.includes("audit.log"));
    for (const file of files) assert.ok(readFileSync(join(folder, file)).length <= LINE * 3, file);
    // Ten events, three per file: the current file has the last one, the two newest backups the six before it.
    assert.equal(readFileSync(path, "utf8").trimEnd().split("\n").length, 1);
    assert.deepEqual(files, ["audit-2026-03-01T10-00-07.000.log", "audit-2026-03-01T10-00-10.000.log", "audit.log"]);
  });

  it("--audit-log-compress: each rotated file becomes <backup>.gz holding its lines, and maxBackups counts the compressed ones", async () => {
    const folder = join(directory, "compress");
    const path = join(folder, "audit.log");
    await writeTenRotating(path, { compress: true });
    const files = readdirSync(folder).sort();
    assert.deepEqual(files, ["audit-2026-03-01T10-00-07.000.log.gz", "audit-2026-03-01T10-00-10.000.log.gz", "audit.log"]);
    const ids = (file: string): string[] =>
      gunzipSync(readFileSync(join(folder, file)))
        .toString("utf8")
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as AuditEvent).auditID);
    assert.deepEqual(ids("audit-2026-03-01T10-00-07.000.log.gz"), ["id-13", "id-14", "id-15"]);
    assert.deepEqual(ids("audit-2026-03-01T10-00-10.000.log.gz"), ["id-16", "id-17", "id-18"]);
  });

  it("--audit-log-format legacy: kube's one-line text per event, in blocking and batch mode", async () => {
    for (const mode of ["blocking", "batch"] as const) {
      const path = join(directory, `legacy-${mode}`, "audit.log");
      const backend = logBackend({ path, format: "legacy", mode });
      backend.processEvents([event(1), { ...event(2), stage: "RequestReceived" }]);
      await backend.shutdown();
      assert.deepEqual(readFileSync(path, "utf8").trimEnd().split("\n"), [
        '2026-01-01T00:00:00Z AUDIT: id="id-1" stage="ResponseComplete" ip="<unknown>" method="list" user="alice" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="/api/v1/pods" response="<deferred>"',
        '2026-01-01T00:00:00Z AUDIT: id="id-2" stage="RequestReceived" ip="<unknown>" method="list" user="alice" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="/api/v1/pods" response="<deferred>"',
      ]);
    }
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

  it("blocking (the default) writes a turn's events together at its end, and a large turn in slices", async () => {
    const path = join(directory, "slices", "audit.log");
    const backend = logBackend({ path });
    backend.processEvents([event(1)]);
    assert.throws(() => readFileSync(path), "nothing is written while the turn goes on");
    for (let id = 2; id <= 300; id++) backend.processEvents([event(id)]);
    // 256 pending events are written at once, without waiting for the end of the turn.
    assert.equal(readFileSync(path, "utf8").trimEnd().split("\n").length, 256);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(readFileSync(path, "utf8").trimEnd().split("\n").length, 300);
    await backend.shutdown();
  });

  it("blocking-strict: a RequestReceived event that cannot be written throws AuditStoreError; other stages are only reported", async () => {
    const blocker = join(directory, "not-a-directory");
    writeFileSync(blocker, "");
    const failures: number[] = [];
    const backend = logBackend({ path: join(blocker, "audit.log"), mode: "blocking-strict", onError: (_error, dropped) => failures.push(dropped) });
    assert.throws(() => backend.processEvents([{ ...event(1), stage: "RequestReceived" }]), AuditStoreError);
    backend.processEvents([event(2)]);
    await backend.shutdown();
    assert.deepEqual(failures, [1, 1]);
    const good = join(directory, "strict", "audit.log");
    const strict = logBackend({ path: good, mode: "blocking-strict" });
    strict.processEvents([event(3)]);
    strict.processEvents([{ ...event(4), stage: "RequestReceived" }]);
    // Written before processEvents returned, the pending event before it (file order is event order).
    assert.deepEqual(
      readFileSync(good, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as AuditEvent).auditID),
      ["id-3", "id-4"],
    );
    await strict.shutdown();
  });

  it("blocking: an event that cannot be encoded is reported and left out, the turn's other events written; blocking-strict fails its request", async () => {
    // JSON.stringify throws on a BigInt: the one way an event built by the filter could fail to encode.
    const unencodable: AuditEvent = { ...event(2), level: "Request", requestObject: { size: 1n } };
    const failures: number[] = [];
    const path = join(directory, "unencodable", "audit.log");
    const backend = logBackend({ path, onError: (_error, dropped) => failures.push(dropped) });
    backend.processEvents([event(1)]);
    backend.processEvents([unencodable]);
    backend.processEvents([event(3)]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(failures, [1]);
    assert.deepEqual(
      readFileSync(path, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as AuditEvent).auditID),
      ["id-1", "id-3"],
    );
    await backend.shutdown();
    const strict = logBackend({ path: join(directory, "unencodable", "strict.log"), mode: "blocking-strict", onError: () => {} });
    assert.throws(() => strict.processEvents([{ ...unencodable, stage: "RequestReceived" }]), AuditStoreError);
    await strict.shutdown();
  });

  it("batch: writes asynchronously in batches of max-size, drops past buffer-size (counted as buffered), shutdown writes the rest", async () => {
    const path = join(directory, "batch", "audit.log");
    const dropped: [string | undefined, number][] = [];
    const backend = logBackend({
      path,
      mode: "batch",
      batch: { bufferSize: 50, maxSize: 20 },
      onError: (_error, count, plugin) => dropped.push([plugin, count]),
    });
    for (let id = 0; id < 60; id++) backend.processEvents([event(id)]);
    assert.deepEqual(dropped, [
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
      ["buffered", 1],
    ]);
    assert.throws(() => readFileSync(path), "processEvents never writes");
    await backend.shutdown();
    const ids = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as AuditEvent).auditID);
    assert.deepEqual(
      ids,
      Array.from({ length: 50 }, (_, id) => `id-${id}`),
    );
  });

  it("batch: a write short of max-size waits max-wait for more events, a full one goes at once", async () => {
    const path = join(directory, "wait", "audit.log");
    const backend = logBackend({ path, mode: "batch", batch: { maxSize: 3, maxWaitMs: 60_000 } });
    backend.processEvents([event(1)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.throws(() => readFileSync(path), "one event of three waits");
    backend.processEvents([event(2), event(3)]);
    for (let attempt = 0; attempt < 200 && !existsSync(path); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
    await backend.shutdown();
    assert.equal(readFileSync(path, "utf8").trimEnd().split("\n").length, 3);
  });

  it("batch: rotation by size still holds with asynchronous writes", async () => {
    const folder = join(directory, "batch-rotate");
    const path = join(folder, "audit.log");
    let clock = Date.parse("2026-03-01T10:00:00.000Z");
    const backend = logBackend({ path, maxBytes: LINE * 3, mode: "batch", batch: { maxSize: 2 }, now: () => (clock += 1000) });
    for (let id = 10; id < 20; id++) backend.processEvents([event(id)]);
    await backend.shutdown();
    const files = readdirSync(folder).sort();
    for (const file of files) assert.ok(readFileSync(join(folder, file)).length <= LINE * 3, file);
    const lines = files.flatMap((file) => readFileSync(join(folder, file), "utf8").trimEnd().split("\n"));
    assert.equal(lines.length, 10);
    assert.equal(files.length, 4, files.join(" "));
  });

  it("a line far larger than the reused buffer is written whole, in order, and lines after it still are", async () => {
    const path = join(directory, "large", "audit.log");
    const backend = logBackend({ path });
    // Fields in kube's order (the request object before the timestamps), as the audit filter sets them.
    const { requestReceivedTimestamp, stageTimestamp, ...first } = event(2);
    const large: AuditEvent = { ...first, level: "Request", requestObject: { data: { big: "é".repeat(600_000) } }, requestReceivedTimestamp, stageTimestamp };
    backend.processEvents([event(1), large, event(3)]);
    await new Promise((resolve) => setImmediate(resolve));
    backend.processEvents([event(4)]);
    await backend.shutdown();
    const expected = [event(1), large, event(3), event(4)].map((sample) => `${JSON.stringify(sample)}\n`).join("");
    assert.deepEqual(readFileSync(path), Buffer.from(expected, "utf8"));
  });

  it("rotation counts UTF-8 bytes, not characters", async () => {
    const folder = join(directory, "utf8-rotate");
    const path = join(folder, "audit.log");
    const wide = (id: number): AuditEvent => ({ ...event(id), userAgent: "é".repeat(100) });
    const bytes = Buffer.byteLength(`${JSON.stringify(wide(10))}\n`);
    let clock = Date.parse("2026-03-01T10:00:00.000Z");
    const backend = logBackend({ path, maxBytes: bytes * 2, now: () => (clock += 1000) });
    backend.processEvents([wide(10), wide(11), wide(12), wide(13), wide(14)]);
    await backend.shutdown();
    const files = readdirSync(folder).sort();
    assert.equal(files.length, 3, files.join(" "));
    for (const file of files) assert.ok(readFileSync(join(folder, file)).length <= bytes * 2, file);
    assert.deepEqual(
      files.flatMap((file) => readFileSync(join(folder, file), "utf8").trimEnd().split("\n")).map((line) => (JSON.parse(line) as AuditEvent).auditID),
      ["id-10", "id-11", "id-12", "id-13", "id-14"],
    );
  });
});
