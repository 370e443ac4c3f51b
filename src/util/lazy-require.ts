import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/**
 * A CommonJS package loaded on the first call, synchronously. For packages only rare features need
 * (gRPC and protobufjs for etcd and KMS): importing them at start-up costs a server that never uses
 * them about 150 ms of CPU. The caller states the package's type (`typeof import("pkg")`).
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= load(name) as T;
    return loaded;
  };
}
