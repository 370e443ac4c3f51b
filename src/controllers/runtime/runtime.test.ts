import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import { queueController } from "./queue-controller.js";
import { workqueueMetrics } from "./queue-metrics.js";
import { defaultRateLimiter } from "./rate-limiter.js";
import { selectControllers } from "./selection.js";
import { WorkQueue } from "./workqueue.js";

describe("work queue", () => {
  it("queues a key once however often it is added, and again when added while being worked on", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    queue.add("a");
    queue.add("b");
    assert.equal(queue.length, 2);
    assert.equal(await queue.get(), "a");
    queue.add("a");
    assert.equal(queue.length, 1, "a is being worked on: not handed out twice");
    assert.equal(await queue.get(), "b");
    queue.done("a");
    assert.equal(await queue.get(), "a");
    queue.shutDown();
    assert.equal(await queue.get(), undefined);
  });

  it("backs off exponentially per item and forgets on success", () => {
    let now = 0;
    const limiter = defaultRateLimiter({ baseMs: 5, maxMs: 1000, now: () => now });
    assert.deepEqual([limiter.when("x"), limiter.when("x"), limiter.when("x"), limiter.when("y")], [5, 10, 20, 5]);
    for (let index = 0; index < 20; index += 1) limiter.when("x");
    assert.equal(limiter.when("x"), 1000);
    limiter.forget("x");
    now += 1000;
    assert.equal(limiter.when("x"), 5);
    assert.equal(limiter.retries("x"), 1);
  });

  it("shutDown clears delayed adds, so no timer is left", async () => {
    const queue = new WorkQueue();
    queue.addAfter("later", 60_000);
    assert.equal(queue.idle, false);
    queue.shutDown();
    assert.equal(queue.idle, true);
  });

  it("of two delays for one item, the one that ends first wins; a delay past a timer's reach is clamped", async () => {
    const queue = new WorkQueue();
    // The queue's timers are unref'd: something must hold the test's event loop open.
    const hold = setInterval(() => {}, 1000);
    try {
      queue.addAfter("x", 3_600_000);
      queue.addAfter("x", 1);
      assert.equal(await queue.get(), "x", "the shorter delay replaced the hour");
      queue.done("x");
      queue.addAfter("y", 1);
      queue.addAfter("y", 3_600_000);
      assert.equal(await queue.get(), "y", "the longer delay did not push the shorter one back");
      queue.done("y");
      // Unclamped, Node would fire such a timer after 1 ms (TimeoutOverflowWarning).
      queue.addAfter("year", 365 * 24 * 3_600_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(queue.idle, false, "still waiting");
      assert.equal(queue.length, 0, "not added after 1 ms");
    } finally {
      queue.shutDown();
      clearInterval(hold);
    }
  });

  it("reports kube's workqueue metrics", async () => {
    const registry = new Registry();
    const queue = new WorkQueue({ metrics: workqueueMetrics(registry)("demo") });
    queue.add("a");
    queue.add("b");
    const key = await queue.get();
    queue.addRateLimited("c");
    queue.done(key ?? "");
    const text = await registry.metrics();
    assert.match(text, /workqueue_adds_total\{name="demo"\} 2/);
    assert.match(text, /workqueue_depth\{name="demo"\} 1/);
    assert.match(text, /workqueue_retries_total\{name="demo"\} 1/);
    assert.match(text, /workqueue_work_duration_seconds_count\{name="demo"\} 1/);
    assert.match(text, /workqueue_queue_duration_seconds_count\{name="demo"\} 1/);
    assert.match(text, /workqueue_unfinished_work_seconds\{name="demo"\} 0/);
    assert.match(text, /workqueue_longest_running_processor_seconds\{name="demo"\} 0/);
    queue.shutDown();
  });
});

describe("queue controller", () => {
  it("retries a crashing reconcile, reports the error, syncs after the first pass and stops cleanly", async () => {
    const errors: string[] = [];
    const seen: string[] = [];
    let failures = 1;
    const controller = queueController(
      {
        name: "demo",
        watch: () => () => {},
        initialKeys: () => ["k"],
        async reconcile(key) {
          seen.push(key);
          if (failures-- > 0) throw new Error("boom");
        },
      },
      { onError: (_name, key, error) => errors.push(`${key}: ${(error as Error).message}`) },
    );
    const stop = new AbortController();
    assert.equal(controller.synced, false);
    const running = controller.run(stop.signal);
    while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ["k", "k"]);
    assert.deepEqual(errors, ["k: boom"]);
    assert.equal(controller.synced, true);
    stop.abort();
    await running;
  });
});

describe("--controllers", () => {
  const known = [
    { name: "garbagecollector", aliases: ["garbage-collector-controller"], enabledByDefault: true },
    { name: "serviceaccount", enabledByDefault: true },
    { name: "tokencleaner", enabledByDefault: false },
  ];
  it("* is the default set; -name removes one; name adds one; aliases resolve", () => {
    assert.deepEqual([...selectControllers(known, ["*"])].sort(), ["garbagecollector", "serviceaccount"]);
    assert.deepEqual([...selectControllers(known, ["*", "-garbage-collector-controller", "tokencleaner"])].sort(), ["serviceaccount", "tokencleaner"]);
    assert.deepEqual([...selectControllers(known, ["serviceaccount"])], ["serviceaccount"]);
  });
  it("an unknown name is refused", () => {
    assert.throws(() => selectControllers(known, ["*", "-nope"]), /"nope" is not in the list of known controllers/);
  });
});
