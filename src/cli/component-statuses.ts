import https from "node:https";
import type { ApiObject } from "../api/object.js";
import type { ComputedResource } from "../endpoints/computed.js";

/** One component's health: kube's probe result (True, False, Unknown), the probe's message and its error. */
export interface ComponentHealth {
  readonly status: "True" | "False" | "Unknown";
  readonly message?: string;
  readonly error?: string;
}

export interface ComponentStatusSources {
  /**
   * The built-in controller manager (kube-controller-manager's controllers, run in this
   * process); undefined when none runs, and then its port is probed as kube does.
   */
  readonly controllers?: () => ComponentHealth;
  /** The store's health check: `etcd-0` is healthy when it resolves (kube names its storage backends etcd-<n>). */
  readonly storage: () => Promise<void>;
  /** Where kube-scheduler and kube-controller-manager answer `/healthz` (kube's fixed secure ports on this host). */
  readonly schedulerUrl?: string;
  readonly controllerManagerUrl?: string;
  /** How long a probe waits (kube's 20 s). */
  readonly probeTimeoutMs?: number;
}

const SCHEDULER_URL = "https://127.0.0.1:10259/healthz";
const CONTROLLER_MANAGER_URL = "https://127.0.0.1:10257/healthz";
const PROBE_TIMEOUT_MS = 20_000;

/** The host and port of a URL as Go's dialer names them in its errors (`127.0.0.1:10259`). */
function hostPort(url: URL): string {
  return `${url.hostname}:${url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port}`;
}

/** A network failure worded as Go's HTTP client words it (kube's message for an unreachable component). */
function probeError(url: URL, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const prefix = `Get "${url.href}": `;
  if (code === "ECONNREFUSED") return `${prefix}dial tcp ${hostPort(url)}: connect: connection refused`;
  if (code === "ETIMEDOUT" || code === "PROBE_TIMEOUT") return `${prefix}context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  return `${prefix}${error instanceof Error ? error.message : String(error)}`;
}

/**
 * kube's HTTP probe of a component's `/healthz` (TLS not verified, as kube's): a 2xx or 3xx
 * answer is healthy with its body as the message; another status is unhealthy with
 * "HTTP probe failed with statuscode: <code>"; no answer is unhealthy with the client's error.
 */
export function probeHealthz(target: string, timeoutMs: number): Promise<ComponentHealth> {
  const url = new URL(target);
  return new Promise((resolve) => {
    const request = https.get(url, { rejectUnauthorized: false, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const code = response.statusCode ?? 0;
        if (code >= 200 && code < 400) resolve({ status: "True", message: Buffer.concat(chunks).toString("utf8") });
        else resolve({ status: "False", message: `HTTP probe failed with statuscode: ${code}` });
      });
      response.on("error", (error) => resolve({ status: "False", message: probeError(url, error) }));
    });
    request.on("timeout", () => request.destroy(Object.assign(new Error("timeout"), { code: "PROBE_TIMEOUT" })));
    request.on("error", (error) => resolve({ status: "False", message: probeError(url, error) }));
  });
}

function componentStatus(name: string, health: ComponentHealth): ApiObject {
  const condition: Record<string, string> = { type: "Healthy", status: health.status };
  if (health.message !== undefined && health.message !== "") condition["message"] = health.message;
  if (health.error !== undefined && health.error !== "") condition["error"] = health.error;
  // ObjectMeta's creationTimestamp is a Go struct: kube writes its zero as null.
  const metadata: Record<string, unknown> = { name, creationTimestamp: null };
  return { kind: "ComponentStatus", apiVersion: "v1", metadata: metadata as ApiObject["metadata"], conditions: [condition] };
}

/**
 * ComponentStatus as kube computes it on each read: `controller-manager`, `scheduler` and
 * `etcd-0`, checked together. The controller manager is this server's own when it runs its
 * controllers; the scheduler (none is built in) is probed where kube-scheduler would answer.
 * Listed by name (kube's order is whichever probe finished first).
 */
export function componentStatuses(sources: ComponentStatusSources): ComputedResource {
  const timeoutMs = sources.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  const storage = async (): Promise<ComponentHealth> => {
    try {
      await sources.storage();
      return { status: "True", message: "ok" };
    } catch (error) {
      return { status: "False", error: error instanceof Error ? error.message : String(error) };
    }
  };
  return {
    async objects() {
      const [controllerManager, scheduler, etcd] = await Promise.all([
        sources.controllers === undefined ? probeHealthz(sources.controllerManagerUrl ?? CONTROLLER_MANAGER_URL, timeoutMs) : sources.controllers(),
        probeHealthz(sources.schedulerUrl ?? SCHEDULER_URL, timeoutMs),
        storage(),
      ]);
      return [componentStatus("controller-manager", controllerManager), componentStatus("etcd-0", etcd), componentStatus("scheduler", scheduler)];
    },
  };
}

/** The built-in controller manager's health from its controllers' checks: "ok" when all pass, else what failed. */
export function controllerManagerHealth(checks: readonly { readonly name: string; check(): void }[]): ComponentHealth {
  const failed: string[] = [];
  for (const check of checks) {
    try {
      check.check();
    } catch (error) {
      failed.push(error instanceof Error ? error.message : check.name);
    }
  }
  return failed.length === 0 ? { status: "True", message: "ok" } : { status: "False", message: failed.join("; ") };
}
