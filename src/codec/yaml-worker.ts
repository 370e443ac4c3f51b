// The worker thread behind `yaml-deep.ts`: runs the `yaml` library's parser on bodies nested deeper
// than the main thread's stack holds, on a thread started with a large stack. One request at a
// time: the caller blocks on `workerData.signal` until the reply is posted on `workerData.port`.
import { workerData, type MessagePort } from "node:worker_threads";
import { parseYamlText } from "./yaml-parse.js";

/** What the caller sends: a YAML text to parse, and whether to report duplicate keys. */
export interface YamlWorkerRequest {
  readonly text: string;
  readonly withDuplicates: boolean;
}

/** The reply: JSON text of the parsed value (V8's JSON.parse of it needs no stack), or the error's message. */
export type YamlWorkerReply =
  | { readonly kind: "parsed"; readonly json: string; readonly duplicates: string[] }
  | { readonly kind: "error"; readonly message: string };

interface YamlWorkerData {
  readonly port: MessagePort;
  readonly signal: Int32Array;
}

function answer(request: YamlWorkerRequest): YamlWorkerReply {
  try {
    const parsed = parseYamlText(request.text, request.withDuplicates);
    return { kind: "parsed", json: JSON.stringify(parsed.value) ?? "null", duplicates: parsed.duplicates };
  } catch (error) {
    return { kind: "error", message: error instanceof Error ? error.message : String(error) };
  }
}

const { port, signal } = workerData as YamlWorkerData;
port.on("message", (request: YamlWorkerRequest) => {
  port.postMessage(answer(request));
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
