/** Encryption at rest: EncryptionConfiguration, the providers, and the Storage decorator that applies them. */
export { EncryptingStorage, rewriteAll, type RewriteReport } from "./encrypting-storage.js";
export { EncryptionConfigError, loadEncryptionConfig, type EncryptionConfig } from "./encryption-config.js";
export { KMS_V2_SERVICE, type DecryptRequest, type DecryptResponse, type EncryptRequest, type EncryptResponse, type StatusResponse } from "./kms-v2-api.js";
export type { KmsV2Transformer } from "./kms-v2.js";
