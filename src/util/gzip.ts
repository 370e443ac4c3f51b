import { promisify } from "node:util";
import { gzip } from "node:zlib";

/** kube's response compression level: speed over ratio. */
export const GZIP_LEVEL = 1;

const gzipAsync = promisify(gzip);

/** A whole response body gzipped at kube's level, on libuv's thread pool (the event loop stays free). */
export function gzipBody(body: string | Uint8Array): Promise<Uint8Array> {
  return gzipAsync(body, { level: GZIP_LEVEL });
}
