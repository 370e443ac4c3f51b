import { ApiError, internalError } from "../api/errors.js";
import type { Admission, AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from "./interface.js";

/** kube's admission step types: `admit` (mutating) and `validate`. */
export type AdmissionStepType = "admit" | "validate";

/**
 * Told how long admission took (the server turns it into kube's admission latency metrics):
 * each step (all mutating plugins, or all validating ones) and each plugin's call, and whether
 * it rejected the request.
 */
export interface AdmissionObserver {
  step(type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  plugin(name: string, type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void;
}

/**
 * The admission slot the registry is built with: plugins are registered into it once the stages
 * they need (authorization, the registry itself) exist, before the server serves. Runs every
 * plugin's mutate in order, then (separately) every validate in order. A plugin's ApiError
 * rejects the request as it is, with the plugin's name added to the Status causes; anything
 * else it throws is a 500 naming the plugin.
 */
export class AdmissionChain implements Admission {
  private plugins: readonly AdmissionPlugin[] = [];
  /**
   * By resource, slots per step type and operation: the plugins with that step that apply, in
   * order (`applies` is asked once per resource, step type and operation, not per request).
   */
  private readonly applicable = new Map<string, (readonly AdmissionPlugin[] | undefined)[]>();
  /** The plugins that may ask for a second mutating pass. */
  private reinvokers: readonly AdmissionPlugin[] = [];

  constructor(private readonly observer?: AdmissionObserver) {}

  /** Appends plugins, in the order they run. */
  register(...plugins: readonly AdmissionPlugin[]): void {
    this.plugins = [...this.plugins, ...plugins];
    this.reinvokers = this.plugins.filter((plugin) => plugin.reinvocationRequested !== undefined);
    this.applicable.clear();
  }

  /** The registered plugins' names, in order. */
  names(): readonly string[] {
    return this.plugins.map((plugin) => plugin.name);
  }

  /**
   * Every mutating plugin in order; once more (all of them, as kube does) when a plugin asks for
   * reinvocation. Answers undefined when every plugin answered synchronously (see `pass`).
   */
  mutate(attributes: AdmissionAttributes): Promise<void> | undefined {
    const started = this.observer === undefined ? 0 : performance.now();
    let done: Promise<void> | undefined;
    try {
      done = this.pass("admit", attributes, started);
    } catch (error) {
      this.observeStep("admit", attributes, true, started);
      throw error;
    }
    if (done === undefined) {
      if (!this.reinvoked(attributes)) {
        this.observeStep("admit", attributes, false, started);
        return undefined;
      }
      done = Promise.resolve();
    }
    return this.finishStep("admit", attributes, started, done, true);
  }

  validate(attributes: AdmissionAttributes): Promise<void> | undefined {
    const started = this.observer === undefined ? 0 : performance.now();
    let done: Promise<void> | undefined;
    try {
      done = this.pass("validate", attributes, started);
    } catch (error) {
      this.observeStep("validate", attributes, true, started);
      throw error;
    }
    if (done === undefined) {
      this.observeStep("validate", attributes, false, started);
      return undefined;
    }
    return this.finishStep("validate", attributes, started, done, false);
  }

  /** A step that went asynchronous: its pass awaited, the reinvocation pass for a mutating step, then observed. */
  private async finishStep(type: AdmissionStepType, attributes: AdmissionAttributes, started: number, done: Promise<void>, reinvoke: boolean): Promise<void> {
    let rejected = true;
    try {
      await done;
      if (reinvoke && this.reinvoked(attributes)) await this.pass(type, attributes, this.observer === undefined ? 0 : performance.now());
      rejected = false;
    } finally {
      this.observeStep(type, attributes, rejected, started);
    }
  }

  private reinvoked(attributes: AdmissionAttributes): boolean {
    return this.reinvokers.length > 0 && this.reinvokers.some((plugin) => plugin.reinvocationRequested?.(attributes) === true);
  }

  private observeStep(type: AdmissionStepType, attributes: AdmissionAttributes, rejected: boolean, started: number): void {
    this.observer?.step(type, attributes.operation, rejected, (performance.now() - started) / 1000);
  }

  /**
   * One phase over every plugin that applies, each called once and timed for the observer: one
   * clock read per plugin, each plugin's end being the next one's start (`started` is the first
   * one's). A plugin that answers synchronously (undefined) is not awaited: while every plugin
   * does, the whole pass runs in the caller's turn, allocates no promise and answers undefined; at
   * the first plugin that answers a promise the rest of the pass continues asynchronously.
   */
  private pass(type: AdmissionStepType, attributes: AdmissionAttributes, started: number): Promise<void> | undefined {
    const plugins = this.pluginsFor(type, attributes);
    let from = started;
    for (let index = 0; index < plugins.length; index++) {
      const plugin = plugins[index] as AdmissionPlugin;
      const step = type === "admit" ? plugin.mutate : plugin.validate;
      if (step === undefined || (plugin.sideEffects === true && attributes.dryRun)) continue;
      let result: Promise<void> | void;
      try {
        result = step.call(plugin, attributes);
      } catch (error) {
        this.observePlugin(plugin, type, attributes, true, from);
        throw namingPlugin(plugin.name, error);
      }
      if (result !== undefined) return this.passOn(type, attributes, plugins, index, result, from);
      from = this.observePlugin(plugin, type, attributes, false, from);
    }
    return undefined;
  }

  /** The rest of a pass once plugin `index` answered a promise: awaited, then the following plugins one by one. */
  private async passOn(
    type: AdmissionStepType,
    attributes: AdmissionAttributes,
    plugins: readonly AdmissionPlugin[],
    index: number,
    pending: Promise<void>,
    started: number,
  ): Promise<void> {
    let from = started;
    for (let at = index; at < plugins.length; at++) {
      const plugin = plugins[at] as AdmissionPlugin;
      let result: Promise<void> | void = pending;
      if (at !== index) {
        const step = type === "admit" ? plugin.mutate : plugin.validate;
        if (step === undefined || (plugin.sideEffects === true && attributes.dryRun)) continue;
        result = undefined;
        try {
          result = step.call(plugin, attributes);
        } catch (error) {
          this.observePlugin(plugin, type, attributes, true, from);
          throw namingPlugin(plugin.name, error);
        }
      }
      try {
        if (result !== undefined) await result;
      } catch (error) {
        this.observePlugin(plugin, type, attributes, true, from);
        throw namingPlugin(plugin.name, error);
      }
      from = this.observePlugin(plugin, type, attributes, false, from);
    }
  }

  /** Tells the observer about one plugin's call that began at `from`; answers when it ended (the next one's start). */
  private observePlugin(plugin: AdmissionPlugin, type: AdmissionStepType, attributes: AdmissionAttributes, rejected: boolean, from: number): number {
    const observer = this.observer;
    if (observer === undefined) return from;
    const now = performance.now();
    observer.plugin(plugin.name, type, attributes.operation, rejected, (now - from) / 1000);
    return now;
  }

  /** The plugins that apply, in order: worked out on the first request of each step type, operation and resource. */
  private pluginsFor(type: AdmissionStepType, attributes: AdmissionAttributes): readonly AdmissionPlugin[] {
    const { operation } = attributes;
    const resource = attributes.resource.resource;
    let slots = this.applicable.get(resource);
    if (slots === undefined) {
      slots = [];
      this.applicable.set(resource, slots);
    }
    const slot = (type === "admit" ? 0 : OPERATIONS.length) + OPERATIONS.indexOf(operation);
    let plugins = slots[slot];
    if (plugins === undefined) {
      plugins = this.plugins.filter((plugin) => applies(plugin, type, operation, resource));
      slots[slot] = plugins;
    }
    return plugins;
  }
}

const OPERATIONS: readonly AdmissionOperation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

function applies(plugin: AdmissionPlugin, type: AdmissionStepType, operation: AdmissionOperation, resource: string): boolean {
  if ((type === "admit" ? plugin.mutate : plugin.validate) === undefined) return false;
  if (plugin.resources !== undefined && !plugin.resources.has(resource)) return false;
  return plugin.handles(operation);
}

/**
 * The error a plugin threw, with its name in the Status causes (kube's messages stay as they are).
 * An Invalid (422) error is left as it is: kubectl prints every cause of an Invalid Status as a
 * `<field>: <message>` line, so an extra cause would show — and one without field causes (a
 * webhook's 422 denial) would print as `The request is invalid: : <plugin>` instead of kube's
 * `The request is invalid: <message>`.
 */
export function namingPlugin(name: string, error: unknown): ApiError {
  if (!(error instanceof ApiError)) return internalError(`admission plugin "${name}" failed: ${error instanceof Error ? error.message : String(error)}`, error);
  const causes = error.details?.causes ?? [];
  if (causes.some((cause) => cause.reason === ADMISSION_PLUGIN_CAUSE)) return error;
  if (error.reason === "Invalid") return error;
  return new ApiError(error.code, error.reason, error.message, {
    details: { ...error.details, causes: [...causes, { reason: ADMISSION_PLUGIN_CAUSE, message: name }] },
    headers: { ...error.headers },
    cause: error,
  });
}

/** The Status cause reason whose message names the admission plugin that rejected a request. */
export const ADMISSION_PLUGIN_CAUSE = "AdmissionPlugin";

/** A chain of fixed plugins. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const chain = new AdmissionChain();
  chain.register(...plugins);
  return chain;
}

export const NO_ADMISSION: Admission = {
  mutate: async () => {},
  validate: async () => {},
};
