import { readFileSync } from "node:fs";
import { apiGroup, type Profile } from "../api/profile.js";
import { unionAuthenticator, type Authenticator } from "../auth/authenticator.js";
import { bootstrapTokenAuthenticator } from "../auth/bootstrap-token.js";
import { parseCaBundle, type CaBundle } from "../auth/ca-bundle.js";
import type { ObjectReader } from "../auth/object-reader.js";
import { requestHeaderAuthenticator } from "../auth/request-header.js";
import { serviceAccountAuthenticator } from "../auth/service-account/authenticator.js";
import { claimNames } from "../auth/service-account/claims.js";
import { issuerDiscovery, type IssuerDiscovery } from "../auth/service-account/discovery.js";
import { parseSigningKey, parseVerificationKeys, type SigningKey, type VerificationKey } from "../auth/service-account/keys.js";
import { serviceAccountTokenIssuer, type ServiceAccountTokenIssuer } from "../auth/service-account/token-issuer.js";
import { audienceAgnostic, bearerTokenAuthenticator, unionTokenAuthenticator, type TokenAuthenticator } from "../auth/token.js";
import { parseTokenFile, tokenFileAuthenticator } from "../auth/token-file.js";
import { tokenReviewer } from "../auth/token-review.js";
import { loadWebhookConfig, webhookClient, type WebhookClient } from "../auth/webhook-client.js";
import { webhookTokenAuthenticator } from "../auth/webhook-token.js";
import { x509Authenticator } from "../auth/x509.js";
import type { TokenRequestOptions, TokenReviewer } from "../registry/index.js";
import type { SniCertificate, TlsMaterial } from "../server/http-server.js";
import { certificateHostNames } from "../server/tls-policy.js";
import { watchFiles, type FileWatcher } from "../util/file-watcher.js";
import { errorFields, type Logger } from "../util/logger.js";
import type { Config } from "./config.js";
import type { PemPair, ServiceAccountKeyFiles } from "./pki.js";

export interface CredentialsOptions {
  readonly config: Config;
  readonly profile: Profile;
  /** Generated material used where no flag names a file. */
  readonly generated: { readonly ca: string; readonly serving: PemPair; readonly serviceAccount?: ServiceAccountKeyFiles };
  readonly logger: Logger;
}

/** The request authenticator and the TokenReview backend, built once the API's objects can be read. */
export interface Authentication {
  /** The request authenticator: authenticating proxy → client certificate → bearer tokens. */
  readonly authenticator: Authenticator;
  /** Backs TokenReview: the bearer-token authenticators. */
  readonly review: TokenReviewer;
}

/** What authentication tells the rest of the server. */
export interface AuthenticationHooks {
  /** A legacy (Secret-based) service-account token was presented: kube labels its Secret with the day. */
  readonly legacyTokenUsed?: (namespace: string, secretName: string, lastUsed: string | undefined) => void;
}

/** Everything authentication needs at run time, built from the flags, with flag-given files reloaded on change. */
export interface Credentials {
  /**
   * Builds the authenticators over the API's objects (service-account and bootstrap tokens read
   * accounts, secrets and pods); call once.
   */
  authentication(objects: ObjectReader, hooks?: AuthenticationHooks): Authentication;
  /** Backs `serviceaccounts/{name}/token`; undefined without a signing key. */
  readonly tokenRequest: TokenRequestOptions | undefined;
  readonly issuerDiscovery: IssuerDiscovery | undefined;
  /** Signs service-account tokens (legacy token Secrets); undefined without a signing key. */
  readonly tokenIssuer: ServiceAccountTokenIssuer | undefined;
  readonly apiAudiences: readonly string[];
  /** The serving certificate and key, and every CA client certificates may chain to. */
  tls(): TlsMaterial;
  /**
   * The data of kube's `extension-apiserver-authentication` ConfigMap (system namespace): the
   * client CA bundle as `client-ca-file`, and with an authenticating proxy its CA
   * (`requestheader-client-ca-file`) and header flags as JSON lists (`null` when not given, as
   * Go's encoder writes an unset flag), which extension API servers read to trust this server.
   */
  authenticationInfo(): Readonly<Record<string, string>>;
  /** Polls the flag-given files; `onTlsChange` gets the new TLS material when one of its files changed. */
  watch(onTlsChange: (tls: TlsMaterial) => void): void;
  close(): void;
}

/** A value loaded from files, replaced when they change; a failed reload keeps the last good value. */
interface Reloadable<T> {
  readonly paths: readonly string[];
  readonly what: string;
  value: T;
  readonly load: () => T;
}

function reloadable<T>(what: string, paths: readonly string[], load: () => T): Reloadable<T> {
  try {
    return { what, paths, value: load(), load };
  } catch (error) {
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function read(path: string): string {
  return readFileSync(path, "utf8");
}

/**
 * Builds the authenticators from the configuration. The union's order (documented in the
 * README and docs/architecture.md): the authenticating proxy (`--requestheader-*`), client
 * certificates (`--client-ca-file`), then bearer tokens: the static token file, service-account
 * tokens, bootstrap tokens, the token webhook. Anonymous is the authenticate filter's fallback.
 */
export function loadCredentials(options: CredentialsOptions): Credentials {
  const { config, profile, generated, logger } = options;
  const materials: Reloadable<unknown>[] = [];
  const track = <T>(material: Reloadable<T>): Reloadable<T> => {
    materials.push(material as Reloadable<unknown>);
    return material;
  };
  const servingFiles = config.tlsCertFile !== undefined && config.tlsPrivateKeyFile !== undefined ? [config.tlsCertFile, config.tlsPrivateKeyFile] : undefined;
  const serving = track(
    reloadable("serving certificate", servingFiles ?? [], () =>
      servingFiles === undefined ? generated.serving : { certificate: read(servingFiles[0] ?? ""), key: read(servingFiles[1] ?? "") },
    ),
  );
  const clientCaFile = config.clientCaFile;
  const clientCa = track(
    reloadable<CaBundle>("--client-ca-file", clientCaFile === undefined ? [] : [clientCaFile], () =>
      parseCaBundle(clientCaFile === undefined ? generated.ca : read(clientCaFile), clientCaFile ?? "generated CA"),
    ),
  );
  const requestHeaderCaFile = config.requestHeaderClientCaFile;
  const requestHeaderCa =
    requestHeaderCaFile === undefined
      ? undefined
      : track(
          reloadable<CaBundle>("--requestheader-client-ca-file", [requestHeaderCaFile], () => parseCaBundle(read(requestHeaderCaFile), requestHeaderCaFile)),
        );

  const issuers = config.serviceAccountIssuers.length > 0 ? config.serviceAccountIssuers : [profile.defaultServiceAccountIssuer];
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : issuers;
  const signingKeyFile = config.serviceAccountSigningKeyFile ?? (config.serviceAccountKeyFiles.length === 0 ? generated.serviceAccount?.keyPath : undefined);
  const signingKey =
    signingKeyFile === undefined
      ? undefined
      : track(reloadable<SigningKey>("--service-account-signing-key-file", [signingKeyFile], () => parseSigningKey(read(signingKeyFile), signingKeyFile)));
  const keyFiles =
    config.serviceAccountKeyFiles.length > 0
      ? config.serviceAccountKeyFiles
      : generated.serviceAccount === undefined
        ? []
        : [generated.serviceAccount.publicKeyPath];
  const verificationKeys = track(
    reloadable<readonly VerificationKey[]>("--service-account-key-file", [...keyFiles, ...(signingKeyFile === undefined ? [] : [signingKeyFile])], () => {
      const keys = keyFiles.flatMap((file) => parseVerificationKeys(read(file), file));
      // The signing key's own public half always verifies what it signs.
      if (signingKeyFile !== undefined)
        keys.push(...parseVerificationKeys(read(signingKeyFile), signingKeyFile).filter((key) => !keys.some((known) => known.kid === key.kid)));
      return keys;
    }),
  );
  const names = claimNames(profile);
  let webhook: WebhookClient | undefined;
  const tokenIssuer =
    signingKey === undefined
      ? undefined
      : serviceAccountTokenIssuer({ issuer: issuers[0] ?? profile.defaultServiceAccountIssuer, signingKey: () => signingKey.value, names });
  const sni = config.tlsSniCertKeys.map((entry) =>
    track(
      reloadable<SniCertificate>(`--tls-sni-cert-key ${entry.certFile}`, [entry.certFile, entry.keyFile], () => {
        const certificate = read(entry.certFile);
        return { certificate, key: read(entry.keyFile), names: entry.names.length > 0 ? entry.names : certificateHostNames(certificate) };
      }),
    ),
  );
  const tls = (): TlsMaterial => ({
    certificate: serving.value.certificate,
    key: serving.value.key,
    sni: sni.map((entry) => entry.value),
    clientCa: [clientCa.value.pem, ...(requestHeaderCa === undefined ? [] : [requestHeaderCa.value.pem])].join("\n"),
  });

  const headerList = (values: readonly string[]): string => (values.length === 0 ? "null" : JSON.stringify(values));
  const authenticationInfo = (): Record<string, string> => ({
    "client-ca-file": clientCa.value.pem,
    ...(requestHeaderCa === undefined
      ? {}
      : {
          "requestheader-allowed-names": headerList(config.requestHeaderAllowedNames),
          "requestheader-client-ca-file": requestHeaderCa.value.pem,
          "requestheader-extra-headers-prefix": headerList(config.requestHeaderExtraHeadersPrefix),
          "requestheader-group-headers": headerList(config.requestHeaderGroupHeaders),
          "requestheader-username-headers": headerList(config.requestHeaderUsernameHeaders),
        }),
  });

  const authentication = (objects: ObjectReader, hooks: AuthenticationHooks = {}): Authentication => {
    const tokens: TokenAuthenticator[] = [];
    const tokenFile = config.tokenAuthFile;
    if (tokenFile !== undefined) {
      const staticTokens = track(reloadable("--token-auth-file", [tokenFile], () => parseTokenFile(read(tokenFile))));
      tokens.push(
        audienceAgnostic(
          apiAudiences,
          tokenFileAuthenticator(() => staticTokens.value),
        ),
      );
    }
    tokens.push(
      serviceAccountAuthenticator({
        issuers,
        apiAudiences,
        keys: () => verificationKeys.value,
        objects: objects,
        names,
        ...(hooks.legacyTokenUsed === undefined ? {} : { legacyTokenUsed: hooks.legacyTokenUsed }),
      }),
    );
    if (config.enableBootstrapTokenAuth) {
      tokens.push(
        audienceAgnostic(
          apiAudiences,
          bootstrapTokenAuthenticator({ objects: objects, namespace: profile.systemNamespace, secretType: profile.bootstrapTokenSecretType }),
        ),
      );
    }
    if (config.authenticationTokenWebhookConfigFile !== undefined) {
      webhook = webhookClient(loadWebhookConfig(config.authenticationTokenWebhookConfigFile));
      tokens.push(
        webhookTokenAuthenticator({
          client: webhook,
          group: apiGroup(profile, "authentication"),
          version: config.authenticationTokenWebhookVersion,
          apiAudiences,
          cacheTtlMs: config.authenticationTokenWebhookCacheTtlMs,
          onError: (error) => logger.error("token webhook", errorFields(error)),
        }),
      );
    }
    const tokenUnion = unionTokenAuthenticator(tokens);
    const authenticators: Authenticator[] = [];
    if (requestHeaderCa !== undefined) {
      authenticators.push(
        requestHeaderAuthenticator({
          usernameHeaders: config.requestHeaderUsernameHeaders,
          groupHeaders: config.requestHeaderGroupHeaders,
          extraHeaderPrefixes: config.requestHeaderExtraHeadersPrefix,
          allowedNames: config.requestHeaderAllowedNames,
          clientCa: () => requestHeaderCa.value,
        }),
      );
    }
    authenticators.push(x509Authenticator(() => clientCa.value));
    authenticators.push(bearerTokenAuthenticator(tokenUnion, apiAudiences));
    return { authenticator: unionAuthenticator(authenticators), review: tokenReviewer(tokenUnion, apiAudiences) };
  };
  let watcher: FileWatcher | undefined;
  return {
    authentication,
    tokenRequest:
      tokenIssuer === undefined
        ? undefined
        : {
            apiAudiences,
            issue: (claims) => {
              const { audiences, expirationSeconds, ...bound } = claims;
              return tokenIssuer.issueBound({ claims: bound, audiences, expirationSeconds });
            },
          },
    issuerDiscovery: issuerDiscovery(issuers[0] ?? profile.defaultServiceAccountIssuer, () => verificationKeys.value),
    tokenIssuer,
    apiAudiences,
    tls,
    authenticationInfo,
    watch(onTlsChange) {
      const paths = materials.flatMap((material) => material.paths);
      if (paths.length === 0 || watcher !== undefined) return;
      watcher = watchFiles(paths, (changed) => {
        let tlsChanged = false;
        for (const material of materials) {
          if (!material.paths.some((path) => changed.includes(path))) continue;
          try {
            material.value = material.load();
            logger.info("reloaded", { what: material.what, files: material.paths });
            if (material === serving || material === clientCa || material === requestHeaderCa || sni.some((entry) => entry === material)) tlsChanged = true;
          } catch (error) {
            logger.error(`reloading ${material.what} failed; keeping the previous one`, errorFields(error));
          }
        }
        if (tlsChanged) onTlsChange(tls());
      });
    },
    close() {
      watcher?.stop();
      webhook?.close();
    },
  };
}
