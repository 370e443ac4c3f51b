import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** For tests: a PEM certificate request for CN=tester with the given organizations (openssl). */
export function generateTestCertificate(organizations: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "test-csr-"));
  try {
    const subject = `/CN=tester${organizations.map((organization) => `/O=${organization}`).join("")}`;
    execFileSync(
      "openssl",
      [
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-subj",
        subject,
        "-out",
        join(dir, "csr.pem"),
      ],
      {
        stdio: "ignore",
      },
    );
    return readFileSync(join(dir, "csr.pem"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** For tests: a self-signed serving certificate for 127.0.0.1 (openssl). */
export function generateTlsPair(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "test-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
