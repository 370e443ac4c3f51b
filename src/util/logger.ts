/** A leveled logger. Verbosity follows kube's `-v`: 0 start-up and errors, 1 requests, 4 debug. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Logged when verbosity >= level. */
  verbose(level: number, message: string, fields?: Record<string, unknown>): void;
  /** Whether `verbose(level, …)` writes anything: lets hot paths skip building fields. */
  enabled(level: number): boolean;
}

function line(level: string, message: string, fields: Record<string, unknown> | undefined): string {
  return `${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`;
}

export function createLogger(verbosity: number, write: (text: string) => void = (text) => process.stderr.write(text)): Logger {
  return {
    info: (message, fields) => write(line("info", message, fields)),
    error: (message, fields) => write(line("error", message, fields)),
    verbose: (level, message, fields) => {
      if (verbosity >= level) write(line("debug", message, fields));
    },
    enabled: (level) => verbosity >= level,
  };
}

export const SILENT_LOGGER: Logger = { info: () => {}, error: () => {}, verbose: () => {}, enabled: () => false };

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.message, stack: error.stack };
  return { error: String(error) };
}
