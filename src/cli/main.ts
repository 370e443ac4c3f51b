import { relative } from "node:path";
import { createLogger } from "../util/logger.js";
import { FlagError, parseArgs } from "./flags.js";
import { StartupError } from "./data-dir.js";
import { startServer } from "./start.js";
import { runCommand } from "./commands.js";
import { markStartup, startupBreakdown } from "../util/startup-clock.js";
import { releaseStartupHeap } from "../util/release-startup-heap.js";
import { tuneHeap } from "../util/heap-tuning.js";

/** The command line: parse flags, start, stop gracefully on SIGTERM/SIGINT. Returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  markStartup("node and modules");
  const commandCode = await runCommand(argv);
  if (commandCode !== undefined) return commandCode;
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    if (error instanceof FlagError) {
      process.stderr.write(`Error: ${error.message}\nRun 'orch-apiserver --help' for usage.\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return 0;
  }
  const config = parsed.config;
  const logger = createLogger(config.verbosity);
  // Deprecated and GA feature gates set explicitly warn, as kube's do.
  for (const warning of config.featureGates.warnings) process.stderr.write(`Warning: ${warning}\n`);
  const started = Date.now();
  // A signal that comes while the server starts (its /readyz may already pass: the controllers'
  // first sync ends later) is kept and acted on once it has started, so it still stops gracefully;
  // a start that has not ended 10 s after it (a store that never answers), or a second signal,
  // exits at once, as the signal's default action did.
  let stopStarted: ((signal: string) => void) | undefined;
  let early: { signal: string; timer: NodeJS.Timeout } | undefined;
  let signalled = false;
  const onSignal = (signal: string): void => {
    if (signalled) process.exit(1);
    signalled = true;
    if (stopStarted !== undefined) {
      stopStarted(signal);
      return;
    }
    logger.info("stopping once started", { signal });
    early = { signal, timer: setTimeout(() => process.exit(1), 10_000).unref() };
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  let server;
  try {
    server = await startServer({ ...config, logger });
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const kubeconfig = relative(process.cwd(), server.kubeconfigPath) || server.kubeconfigPath;
  process.stdout.write(
    `orch-apiserver serving on ${server.url} (ready in ${Date.now() - started} ms, storage ${config.storageBackend}, compat ${config.profile.name})\n`,
  );
  process.stdout.write(`start-up since launch: ${startupBreakdown()}\n`);
  releaseStartupHeap(1000);
  // After start-up: loading the store keeps its objects, which pretenuring suits; requests are short-lived.
  tuneHeap();
  process.stdout.write(`admin kubeconfig: ${kubeconfig}\n  kubectl --kubeconfig ${kubeconfig} get namespaces\n`);
  return new Promise<number>((resolve) => {
    const shutdown = (signal: string): void => {
      logger.info("shutting down", { signal });
      server.stop().then(
        () => resolve(0),
        (error: unknown) => {
          logger.error("shutdown failed", { error: String(error) });
          resolve(1);
        },
      );
    };
    stopStarted = shutdown;
    if (early !== undefined) {
      clearTimeout(early.timer);
      shutdown(early.signal);
    }
  });
}
