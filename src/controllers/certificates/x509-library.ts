import { webcrypto } from "node:crypto";
import type * as X509 from "@peculiar/x509";

/** The `@peculiar/x509` module. */
export type X509Library = typeof X509;

let loading: Promise<X509Library> | undefined;
let loaded: X509Library | undefined;

/**
 * `@peculiar/x509` and its ASN.1 stack, loaded on first need: importing them costs more CPU than
 * any other dependency (about 150 ms here), and only a certificate signing request needs them,
 * so they are kept off the path from process start to the first `/readyz` 200.
 */
export function loadX509(): Promise<X509Library> {
  loading ??= import("@peculiar/x509").then((library) => {
    type WebCrypto = Parameters<typeof library.cryptoProvider.set>[0];
    library.cryptoProvider.set(webcrypto as unknown as WebCrypto);
    loaded = library;
    return library;
  });
  return loading;
}

/** The library once `loadX509()` has resolved (a request object exists only after it did). */
export function loadedX509(): X509Library {
  if (loaded === undefined) throw new Error("@peculiar/x509 is used before loadX509() resolved");
  return loaded;
}
