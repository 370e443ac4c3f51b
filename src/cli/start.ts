import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startHttpServer, type HttpServer } from "../server/http-server.js";
import { createLogger, SILENT_LOGGER, type Logger } from "../util/logger.js";
import type { Config } from "./config.js";
import { defaultConfig } from "./flags.js";
import { renderKubeconfig } from "./kubeconfig.js";
import { composeApiServer } from "./compose.js";
import { checkDataDirProfile, lockDataDir, StartupError } from "./data-dir.js";
import { parseCipherSuites, parseTlsMinVersion, type TlsPolicy } from "../server/tls-policy.js";
import { loadCredentials } from "./credentials.js";
import { ensurePki, ensureServiceAccountKeys } from "./pki.js";
import { createMetrics } from "../server/metrics/metrics.js";
import { markStartup } from "../util/startup-clock.js";

/** Options of `startServer`: any Config field (as the flags), plus a logger. */
export type StartOptions = Partial<Config> & { readonly logger?: Logger };

/** A running server. */
export interface RunningServer {
  /** `https://host:port` */
  readonly url: string;
  readonly port: number;
  /** The admin kubeconfig (YAML text), also written to `kubeconfigPath`. */
  readonly kubeconfig: string;
  readonly kubeconfigPath: string;
  /** The CA certificate (PEM) that signed the serving certificate. */
  readonly caCertificate: string;
  /** Admin client credentials (PEM), as in the kubeconfig. */
  readonly adminCertificate: string;
  readonly adminKey: string;
  /** Graceful stop: readyz fails, in-flight requests finish, watches end, the store closes. */
  stop(): Promise<void>;
}

/**
 * Starts an API server in this process: generates or reuses certificates in the data dir,
 * opens the store, serves HTTPS and writes `<dataDir>/admin.kubeconfig`.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config: Config = { ...defaultConfig(), ...options };
  const logger = options.logger ?? (options.verbosity === undefined ? SILENT_LOGGER : createLogger(config.verbosity));
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(dataDir);
  try {
    checkDataDirProfile(dataDir, config.profile);
    return await startInDataDir(config, logger, dataDir, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

/** `--tls-min-version` and `--tls-cipher-suites` (validated by the flags; library callers get the same errors here). */
function tlsPolicy(config: Config): TlsPolicy {
  try {
    return { minVersion: parseTlsMinVersion(config.tlsMinVersion), ciphers: parseCipherSuites(config.tlsCipherSuites) };
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : String(error));
  }
}

async function startInDataDir(config: Config, logger: Logger, dataDir: string, unlock: () => void): Promise<RunningServer> {
  const adminUser = `${config.profile.name}-admin`;
  // The service-account key pair is generated (off the main thread) alongside the certificates.
  const generateServiceAccountKeys = config.serviceAccountKeyFiles.length === 0 && config.serviceAccountSigningKeyFile === undefined;
  const [pki, serviceAccountKeys] = await Promise.all([
    ensurePki(dataDir, { adminUser, extraNames: config.bindAddress === "0.0.0.0" || config.bindAddress === "::" ? [] : [config.bindAddress] }),
    generateServiceAccountKeys ? ensureServiceAccountKeys(dataDir) : Promise.resolve(undefined),
  ]);
  markStartup("certificates");
  const credentials = loadCredentials({
    config,
    profile: config.profile,
    logger,
    generated: { ca: pki.ca.certificate, serving: pki.serving, ...(serviceAccountKeys === undefined ? {} : { serviceAccount: serviceAccountKeys }) },
  });
  let address = `${config.bindAddress}:${config.securePort}`;
  // The root CA published to namespaces: the generated CA that signs the serving certificate, or the given serving certificate's chain.
  const rootCa = config.tlsCertFile === undefined ? pki.ca.certificate : readFileSync(config.tlsCertFile, "utf8");
  const api = composeApiServer({
    config: { ...config, dataDir },
    logger,
    credentials,
    serverAddress: () => address,
    metrics: createMetrics({ serverVersion: config.profile.gitVersion, showHiddenMetricsForVersion: config.showHiddenMetricsForVersion }),
    clusterCa: pki.ca,
    rootCa,
  });
  markStartup("compose");
  const compactor = config.compactionIntervalMs > 0 ? api.startCompactor({ intervalMs: config.compactionIntervalMs }) : undefined;
  const host = config.bindAddress === "0.0.0.0" || config.bindAddress === "::" ? "127.0.0.1" : config.bindAddress;
  const hostForUrl = host.includes(":") ? `[${host}]` : host;
  let http: HttpServer | undefined;
  const kubeconfigPath = join(dataDir, "admin.kubeconfig");
  let kubeconfig = "";
  // The listener starts once the watch cache holds the store, before the post-start hooks: /readyz fails (500, as kube's) until they pass.
  const listen = async (): Promise<void> => {
    http = await startHttpServer({
      tls: credentials.tls(),
      host: config.bindAddress,
      port: config.securePort,
      handler: api.handler,
      policy: tlsPolicy(config),
      goawayChance: config.goawayChance,
      limits: config.connectionLimits,
      onError: (error) => logger.error("response failed", { error: String(error) }),
    });
    address = `${hostForUrl}:${http.port}`;
    // Written before /readyz can pass: a client that waited for readiness finds the admin kubeconfig of this listener.
    kubeconfig = renderKubeconfig({
      server: `https://${address}`,
      caPem: pki.ca.certificate,
      clientCertificatePem: pki.admin.certificate,
      clientKeyPem: pki.admin.key,
      clusterName: config.profile.name,
      userName: adminUser,
    });
    writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
    markStartup("listening");
  };
  try {
    await api.start({ serving: listen });
    // kube's /readyz does not wait for kube-controller-manager: the listener answers ready while they sync.
    await api.startControllers();
  } catch (error) {
    await http?.stop(0);
    credentials.close();
    compactor?.stop();
    await api.stop();
    throw error;
  }
  if (http === undefined) throw new Error("the server started without its listener");
  const listener: HttpServer = http;
  credentials.watch((tls) => listener.setTls(tls));
  const url = `https://${address}`;
  let stopped: Promise<void> | undefined;
  return {
    url,
    port: listener.port,
    kubeconfig,
    kubeconfigPath,
    caCertificate: pki.ca.certificate,
    adminCertificate: pki.admin.certificate,
    adminKey: pki.admin.key,
    stop() {
      stopped ??= (async () => {
        api.beginShutdown();
        if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
        await listener.stop(config.shutdownGraceMs);
        credentials.close();
        compactor?.stop();
        await api.stop();
        unlock();
      })();
      return stopped;
    },
  };
}
