/**
 * The parts of cel-go's strings extension (version 2, as kube enables it from 1.29) that the library
 * does not ship: `charAt`, `replace` (all or n), `strings.quote` and `format` (string-format.ts).
 * The library itself brings `indexOf`,
 * `lastIndexOf` (with offsets), `lowerAscii`, `upperAscii`, `split`, `substring`, `trim` and `join`.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";
import { format, quote } from "./string-format.js";

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

/** The value of the `strings` constant: `strings.quote(…)` is a method call on it (as `sets`). */
class StringsNamespace {}

/** Registers the missing strings-extension functions on `env`. */
export function registerStringsLibrary(env: Environment): void {
  env
    .registerFunction("string.charAt(int): string", (text: string, index: bigint) => {
      const points = [...text];
      if (index < 0n || index > BigInt(points.length)) throw new EvaluationError(`index out of range: ${index}`);
      return points[Number(index)] ?? "";
    })
    .registerFunction("string.replace(string, string): string", (text: string, from: string, to: string) => replace(text, from, to, -1n))
    .registerFunction("string.replace(string, string, int): string", replace)
    .registerType("kubernetes.StringsNamespace", StringsNamespace)
    .registerConstant("strings", "kubernetes.StringsNamespace", new StringsNamespace())
    .registerFunction("kubernetes.StringsNamespace.quote(string): string", (_: StringsNamespace, text: string) => quote(text))
    .registerFunction("string.format(list): string", format);
}
