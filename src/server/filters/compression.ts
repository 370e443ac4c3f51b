import { constants, createGzip } from "node:zlib";
import type { ApiResponse, Filter } from "../../request/context.js";
import { isPushBody } from "../../request/push-body.js";
import { GZIP_LEVEL, gzipBody } from "../../util/gzip.js";

/** kube's threshold: responses smaller than this are sent as they are. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** True when `Accept-Encoding` lists gzip with a non-zero quality. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  for (const part of header.split(",")) {
    const [coding, ...parameters] = part.trim().split(";");
    if (coding?.trim().toLowerCase() !== "gzip" && coding?.trim() !== "*") continue;
    const quality = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith("q="));
    if (quality === undefined || Number(quality.slice(2)) > 0) return true;
  }
  return false;
}

function gzipped(response: ApiResponse, body: ApiResponse["body"]): ApiResponse {
  const vary = response.headers["vary"];
  const headers: Record<string, string | readonly string[]> = { ...response.headers, "content-encoding": "gzip" };
  headers["vary"] = vary === undefined ? "Accept-Encoding" : [...(typeof vary === "string" ? [vary] : vary), "Accept-Encoding"];
  return { ...response, headers, body };
}

/** A chunk as a Buffer: strings encoded, bytes viewed in place (Buffer.from would copy them). */
function asBuffer(chunk: string | Uint8Array): Buffer {
  return typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Gzips the chunks already read, then the rest of the stream, as it comes. */
async function* gzipStream(head: readonly Buffer[], rest: AsyncIterator<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  const compressor = createGzip({ level: GZIP_LEVEL });
  const output: Buffer[] = [];
  compressor.on("data", (chunk: Buffer) => output.push(chunk));
  const push = (chunk: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      compressor.write(chunk, (error) => (error ? reject(error) : compressor.flush(constants.Z_SYNC_FLUSH, () => resolve())));
    });
  try {
    for (const chunk of head) await push(chunk);
    for (;;) {
      if (output.length > 0) yield Buffer.concat(output.splice(0));
      const step = await rest.next();
      if (step.done === true) break;
      await push(asBuffer(step.value));
    }
    // The gzip trailer comes out as the compressor's last 'data', after the writable side's
    // 'finish' (what `end(callback)` waits for): wait for the readable side's 'end', or the
    // stream lost its last bytes and clients failed with "unexpected EOF".
    await new Promise<void>((resolve, reject) => {
      compressor.once("end", resolve);
      compressor.once("error", reject);
      compressor.end();
    });
    if (output.length > 0) yield Buffer.concat(output.splice(0));
  } finally {
    compressor.destroy();
    await rest.return?.();
  }
}

/**
 * Response compression (`APIResponseCompression`): a response of 128 KiB or more goes out
 * gzipped (level 1) when the client accepts gzip, as kube does. Watches are never compressed; a
 * streamed list is read ahead up to the threshold to decide, then compressed as it streams. A
 * response that offers its body's kept gzip (`keptGzip`) is sent with that.
 */
export function compressionFilter(): Filter {
  return (next) => async (context) => {
    const response = await next(context);
    if (response.longRunning === true || response.headers["content-encoding"] !== undefined) return response;
    if (!acceptsGzip(context.request.headers["accept-encoding"])) return response;
    const body = response.body;
    if (typeof body === "string" || body instanceof Uint8Array) {
      const size = typeof body === "string" ? Buffer.byteLength(body) : body.length;
      if (size < GZIP_THRESHOLD_BYTES) return response;
      // A body its maker keeps (discovery, OpenAPI) comes with its gzip kept too: compressed once, not per request.
      const kept = response.keptGzip?.of === body ? response.keptGzip : undefined;
      return gzipped(response, await (kept?.gzipped() ?? gzipBody(body)));
    }
    if (isPushBody(body)) return response;
    const iterator = body[Symbol.asyncIterator]();
    const head: Buffer[] = [];
    let size = 0;
    while (size < GZIP_THRESHOLD_BYTES) {
      const step = await iterator.next();
      if (step.done === true) return { ...response, body: Buffer.concat(head) };
      const chunk = asBuffer(step.value);
      head.push(chunk);
      size += chunk.length;
    }
    return gzipped(response, gzipStream(head, iterator));
  };
}
