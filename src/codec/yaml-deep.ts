import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { internalError } from "../api/errors.js";
import type { ParsedYaml } from "./yaml-parse.js";
import type { YamlWorkerReply, YamlWorkerRequest } from "./yaml-worker.js";

/**
 * The `yaml` library's composer recurses once or more per level of nesting and runs
 * out of Node's default stack near 785 levels (past it, V8 may even abort the process while
 * compiling a regular expression with no stack left). kube's decoders accept 10,000 levels, so
 * YAML nested deeper than the main thread can take is handed to one worker thread started with a
 * large stack, and the caller waits for it synchronously (decoding is synchronous, and the main
 * thread would be busy parsing anyway). The worker starts on first use and is unref'd.
 */

/** The worker's stack: 10,000 levels take about 15 MB; the bound checked before (`yamlNestingBound`) lets through up to three times that. */
const WORKER_STACK_MB = 256;
/** A reply later than this means the worker is stuck or gone: it is replaced and the request fails. */
const REPLY_TIMEOUT_MS = 20_000;

interface Channel {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
}

let channel: Channel | undefined;

/**
 * The worker's module: beside this one in dist/src/codec, or, when this code runs from the one-file
 * bundle (dist/bundle/main.cjs, whose `import.meta.url` is the bundle's), at dist/src/codec from there.
 */
function workerFile(): URL {
  const beside = new URL("./yaml-worker.js", import.meta.url);
  return existsSync(fileURLToPath(beside)) ? beside : new URL("../src/codec/yaml-worker.js", import.meta.url);
}

function open(): Channel {
  if (channel !== undefined) return channel;
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(workerFile(), {
    workerData: { port: port2, signal },
    transferList: [port2],
    resourceLimits: { stackSizeMb: WORKER_STACK_MB },
  });
  worker.unref();
  const opened: Channel = { worker, port: port1, signal };
  const forget = (): void => {
    if (channel === opened) channel = undefined;
  };
  worker.on("error", forget);
  worker.on("exit", forget);
  channel = opened;
  return opened;
}

function call(request: YamlWorkerRequest): YamlWorkerReply & { kind: "parsed" } {
  const current = open();
  Atomics.store(current.signal, 0, 0);
  current.port.postMessage(request);
  Atomics.wait(current.signal, 0, 0, REPLY_TIMEOUT_MS);
  const received = receiveMessageOnPort(current.port);
  if (received === undefined) {
    channel = undefined;
    void current.worker.terminate();
    throw internalError(`the YAML worker did not answer within ${REPLY_TIMEOUT_MS / 1000} s`);
  }
  const reply = received.message as YamlWorkerReply;
  if (reply.kind === "error") throw new Error(reply.message);
  return reply;
}

/** `parseYamlText` on the worker thread; throws the parser's error as an Error with its message. */
export function parseYamlOffThread(text: string, withDuplicates: boolean): ParsedYaml {
  const reply = call({ text, withDuplicates });
  return { value: JSON.parse(reply.json) as unknown, duplicates: reply.duplicates };
}
