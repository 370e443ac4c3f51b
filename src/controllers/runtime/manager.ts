import { setMaxListeners } from "node:events";
import type { Controller } from "../controller.js";
import type { ManagedController } from "./queue-controller.js";

/** A health check as `/readyz` runs it (the server's HealthCheck shape). */
export interface ReadyCheck {
  readonly name: string;
  check(): void;
}

/** Runs `lead` while this server holds the lease; resolves when the signal aborts. */
export interface LeaderElection {
  run(signal: AbortSignal, lead: (leading: AbortSignal) => Promise<void>): Promise<void>;
  readonly leading: boolean;
}

export interface ManagerOptions {
  /** Controllers run on the elected server only (all of them, when no election). */
  readonly elected: readonly ManagedController[];
  /** Controllers every server runs (the server's own Service and endpoints). */
  readonly everywhere?: readonly ManagedController[];
  readonly election?: LeaderElection;
  readonly onStopped?: (name: string, error: unknown) => void;
}

/** Adapts a loop-style Controller (today's interface): synced once it runs. */
export function managedLoop(controller: Controller): ManagedController {
  let running = false;
  return {
    name: controller.name,
    get synced() {
      return running;
    },
    run(signal) {
      running = true;
      return controller.run(signal).finally(() => {
        running = false;
      });
    },
  };
}

/** A signal that aborts with `parent`, through one listener on it. */
function childSignal(parent: AbortSignal): AbortSignal {
  const child = new AbortController();
  if (parent.aborted) child.abort();
  else parent.addEventListener("abort", () => child.abort(), { once: true });
  return child.signal;
}

/**
 * Starts and stops the server's controllers. `/readyz` gets one check per controller,
 * `controller-<name>`, passing once the controller has synced (or while another server leads).
 */
export class ControllerManager {
  private readonly stopping = new AbortController();
  private running: Promise<void>[] = [];

  constructor(private readonly options: ManagerOptions) {}

  readyz(): ReadyCheck[] {
    const election = this.options.election;
    return [...this.options.elected, ...(this.options.everywhere ?? [])].map((controller) => ({
      name: `controller-${controller.name}`,
      check: () => {
        const standby = election !== undefined && !election.leading && this.options.elected.includes(controller);
        if (!standby && !controller.synced) throw new Error(`${controller.name} has not synced`);
      },
    }));
  }

  /** Starts every controller: the server's own, then the elected ones. */
  start(): void {
    this.startOwn();
    this.startElected();
  }

  /**
   * Starts the controllers every server runs (`everywhere`: the API server's own, such as the
   * custom resource definitions and the server's Service). Each controller runs on a signal of its
   * own: its watches listen there, and the shared signal holds one listener per controller (more
   * than Node's default warning limit of 10, by design).
   */
  startOwn(): void {
    setMaxListeners(this.controllerCount() + 10, this.stopping.signal);
    this.running.push(...this.launch(this.options.everywhere ?? [], this.stopping.signal));
  }

  /** Starts kube-controller-manager's controllers (`elected`): at once, or while this server holds the Lease. */
  startElected(): void {
    const signal = this.stopping.signal;
    const election = this.options.election;
    if (election === undefined) this.running.push(...this.launch(this.options.elected, signal));
    else
      this.running.push(
        election
          .run(signal, async (leading) => {
            setMaxListeners(this.options.elected.length + 10, leading);
            await Promise.all(this.launch(this.options.elected, leading));
          })
          .catch((error: unknown) => this.options.onStopped?.("leader-election", error)),
      );
  }

  private controllerCount(): number {
    return this.options.elected.length + (this.options.everywhere?.length ?? 0);
  }

  private launch(controllers: readonly ManagedController[], on: AbortSignal): Promise<void>[] {
    return controllers.map((controller) => controller.run(childSignal(on)).catch((error: unknown) => this.options.onStopped?.(controller.name, error)));
  }

  /** Resolves once every running controller has synced (at once on a standby), or after `timeoutMs`. */
  async waitForSync(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const pending = (): boolean =>
      this.readyz().some((check) => {
        try {
          check.check();
          return false;
        } catch {
          return true;
        }
      });
    while (pending() && Date.now() < deadline && !this.stopping.signal.aborted) {
      await new Promise<void>((resolve) => setTimeout(resolve, 5).unref());
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled(this.running);
    this.running = [];
  }
}
