/**
 * One load-generator thread: opens its own client, runs `concurrency` closed-loop slots for the
 * warm-up plus the measured window, and posts back the latencies of the measured requests.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openClient, type Client } from "./client.js";
import type { Scenario, WorkerMessage, WorkerResult, WorkerTask } from "./load-types.js";
import { asRecord, configMapBody } from "./objects.js";

const task = workerData as WorkerTask;
const port = parentPort;
if (port === null) throw new Error("load-worker must run as a worker thread");

const now = (): number => performance.timeOrigin + performance.now();

type Operation = () => Promise<{ readonly status: number; readonly bytes: number }>;

function configMapsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/configmaps`;
}

/** Builds one slot's operation (and does its untimed set-up, e.g. the object an update slot owns). */
async function slotOperation(client: Client, scenario: Scenario, slot: number): Promise<Operation> {
  const id = `${task.runId}-w${task.workerIndex}-s${slot}`;
  switch (scenario.kind) {
    case "get":
      return () => client.request("GET", scenario.path);
    case "create": {
      let sequence = 0;
      const path = configMapsPath(scenario.namespace);
      return () => client.request("POST", path, configMapBody(scenario.namespace, `${scenario.namePrefix}-${id}-${sequence++}`, scenario.bodyBytes));
    }
    case "update": {
      const name = `${scenario.namePrefix}-${id}`;
      const path = `${configMapsPath(scenario.namespace)}/${name}`;
      const created = await client.request("POST", configMapsPath(scenario.namespace), configMapBody(scenario.namespace, name, scenario.bodyBytes), true);
      const fetched = created.status === 201 ? created : await client.request("GET", path, undefined, true);
      if (fetched.status !== 200 && fetched.status !== 201) throw new Error(`update set-up: ${name} answered ${fetched.status}`);
      let current = asRecord(JSON.parse(String(fetched.body)) as unknown) ?? {};
      let sequence = 0;
      return async () => {
        const data = asRecord(current["data"]) ?? {};
        current = { ...current, data: { ...data, sequence: String(sequence++) } };
        const reply = await client.request("PUT", path, JSON.stringify(current), true);
        if (reply.status === 200) current = asRecord(JSON.parse(String(reply.body)) as unknown) ?? current;
        else if (reply.status === 409) {
          const again = await client.request("GET", path, undefined, true);
          if (again.status === 200) current = asRecord(JSON.parse(String(again.body)) as unknown) ?? current;
        }
        return reply;
      };
    }
  }
}

async function main(): Promise<void> {
  const client = await openClient(task.protocol, task.target, task.concurrency);
  const operations: Operation[] = [];
  for (let slot = 0; slot < task.concurrency; slot++) operations.push(await slotOperation(client, task.scenario, slot));
  const start = await new Promise<number>((resolve) => {
    port?.once("message", (message: WorkerMessage) => {
      if (message.type === "start") resolve(message.startAt);
    });
    port?.postMessage({ type: "ready" } satisfies WorkerMessage);
  });
  const measureStart = start + task.warmupMs;
  const end = measureStart + task.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let firstError: string | undefined;
  let bytes = 0;
  let lastCompletion = measureStart;
  const wait = start - now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  await Promise.all(
    operations.map(async (operation) => {
      while (now() < end) {
        const began = now();
        let status = 0;
        let received = 0;
        try {
          const reply = await operation();
          status = reply.status;
          received = reply.bytes;
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
          await new Promise((resolve) => setTimeout(resolve, 10));
          continue;
        }
        const finished = now();
        if (began < measureStart) continue;
        latencies.push(finished - began);
        bytes += received;
        statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
        if (status !== task.scenario.expectStatus) firstError ??= `HTTP ${status}`;
        if (finished > lastCompletion) lastCompletion = finished;
      }
    }),
  );
  client.close();
  const result: WorkerResult = { latenciesMs: Float64Array.from(latencies), statuses, errors, firstError, bytes, measureStart, lastCompletion };
  port?.postMessage({ type: "result", result } satisfies WorkerMessage, [result.latenciesMs.buffer as ArrayBuffer]);
}

main().catch((error: unknown) => {
  port.postMessage({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies WorkerMessage);
});
