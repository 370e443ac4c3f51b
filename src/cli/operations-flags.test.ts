import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inProcessServer } from "../testing/in-process.js";
import { FeatureGateError, featureGates, KNOWN_FEATURES } from "../util/feature-gates.js";
import { FlagError, parseArgs } from "./flags.js";
import { main } from "./main.js";

function config(argv: string[]) {
  const parsed = parseArgs(argv);
  assert.equal(parsed.kind, "config");
  if (parsed.kind !== "config") throw new Error("no config");
  return parsed.config;
}

describe("--show-hidden-metrics-for-version", () => {
  it("takes the previous minor version of the served release", () => {
    assert.equal(config(["--show-hidden-metrics-for-version=1.29"]).showHiddenMetricsForVersion, "1.29");
    assert.equal(config([]).showHiddenMetricsForVersion, undefined);
  });

  it("any other version is an error naming the allowed one", () => {
    assert.throws(
      () => parseArgs(["--show-hidden-metrics-for-version=1.28"]),
      (error: unknown) => error instanceof FlagError && /must be omitted or have the value '1\.29'/.test(error.message),
    );
  });
});

describe("--feature-gates", () => {
  it("defaults follow the stages: alpha off, beta and GA on", () => {
    const gates = config([]).featureGates;
    assert.equal(gates.enabled("APIServerTracing"), false);
    assert.equal(gates.enabled("APIServerIdentity"), false);
    assert.equal(gates.enabled("APIResponseCompression"), true);
    assert.equal(gates.enabled("ServerSideApply"), true);
  });

  it("turns gates on and off; repeated flags add up and the last setting wins", () => {
    const gates = config([
      "--feature-gates=APIServerTracing=true,APIResponseCompression=false",
      "--feature-gates",
      "APIResponseCompression=true,RemainingItemCount=false",
    ]).featureGates;
    assert.equal(gates.enabled("APIServerTracing"), true);
    assert.equal(gates.enabled("APIResponseCompression"), true);
    assert.equal(gates.enabled("RemainingItemCount"), false);
    assert.deepEqual(gates.warnings, []);
  });

  it("an unknown gate is an error naming it", () => {
    assert.throws(
      () => parseArgs(["--feature-gates=Teleport=true"]),
      (error: unknown) => error instanceof FlagError && /unrecognized feature gate: Teleport/.test(error.message),
    );
  });

  it("disabling a GA gate fails naming it; setting it to true warns", () => {
    assert.throws(
      () => parseArgs(["--feature-gates=ServerSideApply=false"]),
      (error: unknown) => error instanceof FlagError && /cannot set feature gate ServerSideApply to false, feature is locked to true/.test(error.message),
    );
    assert.deepEqual(config(["--feature-gates=DryRun=true"]).featureGates.warnings, [
      "Setting GA feature gate DryRun=true. It will be removed in a future release.",
    ]);
  });

  it("a deprecated gate warns when set", () => {
    const known = new Map([...KNOWN_FEATURES, ["OldThing", { stage: "Deprecated" as const, default: false, locked: false, since: "1.29" }]]);
    const gates = featureGates(new Map([["OldThing", true]]), known);
    assert.deepEqual(gates.warnings, ["Setting deprecated feature gate OldThing=true. It will be removed in a future release."]);
    assert.throws(() => featureGates(new Map([["Missing", true]]), known), FeatureGateError);
  });

  it("malformed values are errors", () => {
    assert.throws(() => parseArgs(["--feature-gates=APIServerTracing"]), /missing bool value for APIServerTracing/);
    assert.throws(() => parseArgs(["--feature-gates=APIServerTracing=yes"]), /must be true or false/);
  });

  it("the command line exits 2 on a bad gate", async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((text: string) => {
      written.push(String(text));
      return true;
    }) as typeof process.stderr.write;
    try {
      assert.equal(await main(["--feature-gates=WatchBookmark=false"]), 2);
    } finally {
      process.stderr.write = write;
    }
    assert.match(written.join(""), /WatchBookmark/);
  });

  it("--tracing-config-file needs APIServerTracing", () => {
    assert.throws(() => parseArgs(["--tracing-config-file=/tmp/t.yaml"]), /APIServerTracing/);
    assert.equal(config(["--feature-gates=APIServerTracing=true", "--tracing-config-file=/tmp/t.yaml"]).tracingConfigFile, "/tmp/t.yaml");
  });
});

describe("gates that change behaviour", () => {
  it("WatchList=false refuses sendInitialEvents; APIListChunking=false serves lists whole; RemainingItemCount=false leaves the count out", async () => {
    for (const enabled of [true, false]) {
      const gates = featureGates(
        new Map([
          ["WatchList", enabled],
          ["APIListChunking", enabled],
          ["RemainingItemCount", enabled],
        ]),
      );
      const server = await inProcessServer({ featureGates: gates });
      try {
        for (const name of ["a", "b", "c"]) await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name } } });
        const page = await server.call("GET", "/api/v1/namespaces/default/configmaps?limit=1");
        const metadata = page.json["metadata"] as Record<string, unknown>;
        assert.equal((page.json["items"] as unknown[]).length, enabled ? 1 : 3);
        assert.equal(metadata["continue"] !== undefined, enabled);
        assert.equal(metadata["remainingItemCount"] !== undefined, enabled);
        const controller = new AbortController();
        const watch = await server.raw(
          "GET",
          "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
          { signal: controller.signal },
        );
        controller.abort();
        assert.equal(watch.status, enabled ? 200 : 422);
      } finally {
        await server.stop();
      }
    }
  });
});

describe("--audit-log-mode and --audit-log-batch-*", () => {
  it("default to kube's: blocking, buffer 10000, one event per write, no throttle", () => {
    const audit = config([]).audit;
    assert.equal(audit.logMode, "blocking");
    assert.deepEqual([audit.logBatchBufferSize, audit.logBatchMaxSize, audit.logBatchMaxWaitMs, audit.logBatchThrottleEnable], [10_000, 1, 0, false]);
  });

  it("reads every mode and the batch settings; an unknown mode is an error naming the known ones", () => {
    for (const mode of ["blocking", "blocking-strict", "batch"]) assert.equal(config([`--audit-log-mode=${mode}`]).audit.logMode, mode);
    const audit = config([
      "--audit-log-mode=batch",
      "--audit-log-batch-buffer-size=500",
      "--audit-log-batch-max-size=100",
      "--audit-log-batch-max-wait=2s",
      "--audit-log-batch-throttle-enable",
      "--audit-log-batch-throttle-qps=5.5",
      "--audit-log-batch-throttle-burst=7",
    ]).audit;
    assert.deepEqual(
      [
        audit.logBatchBufferSize,
        audit.logBatchMaxSize,
        audit.logBatchMaxWaitMs,
        audit.logBatchThrottleEnable,
        audit.logBatchThrottleQps,
        audit.logBatchThrottleBurst,
      ],
      [500, 100, 2000, true, 5.5, 7],
    );
    assert.throws(
      () => parseArgs(["--audit-log-mode=sometimes"]),
      (error: unknown) => error instanceof FlagError && /blocking, blocking-strict, batch/.test(error.message),
    );
  });
});

describe("--audit-webhook-mode", () => {
  it("defaults to kube's batch, reads blocking and blocking-strict; an unknown mode is an error naming the known ones", () => {
    assert.equal(config([]).audit.webhookMode, "batch");
    for (const mode of ["batch", "blocking", "blocking-strict"]) assert.equal(config([`--audit-webhook-mode=${mode}`]).audit.webhookMode, mode);
    assert.throws(
      () => parseArgs(["--audit-webhook-mode=sometimes"]),
      (error: unknown) => error instanceof FlagError && /--audit-webhook-mode: must be one of batch, blocking, blocking-strict/.test(error.message),
    );
  });
});

describe("--livez-grace-period", () => {
  it("defaults to kube's 0s and reads a duration; a bad one is an error naming the flag", () => {
    assert.equal(config([]).livezGracePeriodMs, 0);
    assert.equal(config(["--livez-grace-period=1m30s"]).livezGracePeriodMs, 90_000);
    assert.throws(
      () => config(["--livez-grace-period=soon"]),
      (error: unknown) => error instanceof FlagError && /livez-grace-period/.test(error.message),
    );
  });
});

describe("--audit-log-format, --audit-log-compress, --audit-*-version, --audit-webhook-batch-throttle-enable", () => {
  it("default to kube's: json, no compression, the webhook throttled", () => {
    const audit = config([]).audit;
    assert.deepEqual([audit.logFormat, audit.logCompress, audit.webhookBatchThrottleEnable, audit.logVersion], ["json", false, true, undefined]);
  });

  it("read legacy, compression and an unthrottled webhook; an unknown format names the known ones", () => {
    const audit = config(["--audit-log-format=legacy", "--audit-log-compress", "--audit-webhook-batch-throttle-enable=false"]).audit;
    assert.deepEqual([audit.logFormat, audit.logCompress, audit.webhookBatchThrottleEnable], ["legacy", true, false]);
    assert.throws(
      () => parseArgs(["--audit-log-format=xml"]),
      (error: unknown) => error instanceof FlagError && error.message.includes("known formats are legacy,json"),
    );
  });

  it("only the profile's audit group at v1 is a version: audit.orch.io/v1 here, audit.k8s.io/v1 with --compat kubernetes", () => {
    assert.equal(config(["--audit-log-version=audit.orch.io/v1", "--audit-webhook-version=audit.orch.io/v1"]).audit.logVersion, "audit.orch.io/v1");
    assert.equal(config(["--compat", "kubernetes", "--audit-log-version=audit.k8s.io/v1"]).audit.logVersion, "audit.k8s.io/v1");
    for (const argv of [["--audit-log-version=audit.k8s.io/v1"], ["--audit-webhook-version=audit.orch.io/v1beta1"]])
      assert.throws(
        () => parseArgs(argv),
        (error: unknown) => error instanceof FlagError && /only audit\.orch\.io\/v1 is supported/.test(error.message),
      );
  });
});

describe("--audit-log-truncate-* and --audit-webhook-truncate-*", () => {
  it("default to kube's (off, 10 MiB batches, 100 KiB events) and read each backend's own", () => {
    const defaults = config([]).audit;
    assert.deepEqual(defaults.logTruncate, { enabled: false, maxBatchBytes: 10_485_760, maxEventBytes: 102_400 });
    const audit = config([
      "--audit-webhook-truncate-enabled",
      "--audit-webhook-truncate-max-event-size=2048",
      "--audit-log-truncate-max-batch-size=4096",
    ]).audit;
    assert.deepEqual(audit.webhookTruncate, { enabled: true, maxBatchBytes: 10_485_760, maxEventBytes: 2048 });
    assert.deepEqual(audit.logTruncate, { enabled: false, maxBatchBytes: 4096, maxEventBytes: 102_400 });
  });

  it("an enabled backend's event maximum above its batch maximum is an error", () => {
    assert.throws(
      () => parseArgs(["--audit-log-truncate-enabled", "--audit-log-truncate-max-batch-size=1000", "--audit-log-truncate-max-event-size=2000"]),
      (error: unknown) =>
        error instanceof FlagError &&
        error.message.includes("--audit-log-truncate-max-event-size (2000) must not exceed --audit-log-truncate-max-batch-size (1000)"),
    );
  });
});
