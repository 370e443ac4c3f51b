/** What the load orchestrator and its worker threads exchange. */
import type { Protocol, Target } from "./client.js";

export type Scenario =
  /** GET one path over and over (a single object, a list, the bare server). */
  | { readonly kind: "get"; readonly path: string; readonly expectStatus: number }
  /** POST ConfigMaps with unique names. */
  | { readonly kind: "create"; readonly namespace: string; readonly namePrefix: string; readonly bodyBytes: number; readonly expectStatus: number }
  /** Each slot owns one ConfigMap and PUTs it back with a changed data field, using the object the last PUT returned. */
  | { readonly kind: "update"; readonly namespace: string; readonly namePrefix: string; readonly bodyBytes: number; readonly expectStatus: number };

export interface WorkerTask {
  readonly protocol: Protocol;
  readonly target: Target;
  readonly concurrency: number;
  readonly workerIndex: number;
  /** Unique per run of a phase: object names carry it, so a repeated phase creates new names. */
  readonly runId: string;
  readonly scenario: Scenario;
  readonly warmupMs: number;
  readonly durationMs: number;
}

export interface WorkerResult {
  /** Latencies of the requests started inside the measured window. */
  readonly latenciesMs: Float64Array;
  /** HTTP status → count, for the measured requests. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests that failed without an HTTP answer (socket errors). */
  readonly errors: number;
  readonly firstError: string | undefined;
  readonly bytes: number;
  /** Epoch ms (fractional). */
  readonly measureStart: number;
  readonly lastCompletion: number;
}

export type WorkerMessage =
  | { readonly type: "ready" }
  | { readonly type: "start"; readonly startAt: number }
  | { readonly type: "result"; readonly result: WorkerResult }
  | { readonly type: "failed"; readonly message: string };
