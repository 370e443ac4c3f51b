/**
 * The parts of cel-go's strings extension (version 2, as kube 1.30 enables it) that the library
 * does not ship: `charAt` and `replace` (all or n). The library itself brings `indexOf`,
 * `lastIndexOf` (with offsets), `lowerAscii`, `upperAscii`, `split`, `substring`, `trim` and `join`.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

function replace(text: string, from: string, to: string, limit: bigint): string {
  if (limit === 0n) return text;
  if (limit < 0n) return text.split(from).join(to);
  let out = text;
  let at = 0;
  for (let done = 0n; done < limit; done++) {
    const found = out.indexOf(from, at);
    if (found < 0) break;
    out = out.slice(0, found) + to + out.slice(found + from.length);
    at = found + to.length + (from === "" ? 1 : 0);
  }
  return out;
}

/** Registers the missing strings-extension functions on `env`. */
export function registerStringsLibrary(env: Environment): void {
  env
    .registerFunction("string.charAt(int): string", (text: string, index: bigint) => {
      const points = [...text];
      if (index < 0n || index > BigInt(points.length)) throw new EvaluationError(`index out of range: ${index}`);
      return points[Number(index)] ?? "";
    })
    .registerFunction("string.replace(string, string): string", (text: string, from: string, to: string) => replace(text, from, to, -1n))
    .registerFunction("string.replace(string, string, int): string", replace);
}
