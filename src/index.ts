/** The library surface: start a real API server in-process (tests, tools, embedding). */
export { startServer, type RunningServer, type StartOptions } from "./cli/start.js";
export type { Config, StorageBackend } from "./cli/config.js";
export { ORCH_PROFILE, KUBERNETES_PROFILE, type Profile } from "./api/profile.js";
export { DEFAULT_AUTHORIZATION, type AuthorizationConfig, type AuthorizationMode } from "./authz/modes.js";
