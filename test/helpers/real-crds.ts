// The published CustomResourceDefinitions of test/fixtures/real-crds/ (README.md there names each file's source).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { apiGroup, KUBERNETES_PROFILE, type Profile } from "../../src/api/profile.js";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/real-crds/", import.meta.url));

/** The path of a fixture file. */
export const realCrdFixture = (name: string): string => join(FIXTURES, name);

/**
 * A definition file as `profile` spells apiextensions (the published files say apiextensions.k8s.io):
 * the fixture itself under `--compat kubernetes`, else a respelled copy written with `scratch`.
 */
export function definitionFileFor(profile: Profile, scratch: (name: string, text: string) => string): (file: string) => string {
  return (file) =>
    profile === KUBERNETES_PROFILE
      ? realCrdFixture(file)
      : scratch(
          file,
          readFileSync(realCrdFixture(file), "utf8").replace(
            /^apiVersion: apiextensions\.k8s\.io\/v1$/m,
            `apiVersion: ${apiGroup(profile, "apiextensions")}/v1`,
          ),
        );
}
