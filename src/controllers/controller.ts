/** A background loop started and stopped by the server's lifecycle. `run` returns once `signal` aborts. */
export interface Controller {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
}
