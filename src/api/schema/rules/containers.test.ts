import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const PODS = "/api/v1/namespaces/default/pods";

function pod(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Pod", metadata: { name }, spec };
}

function container(extra: Record<string, unknown>): Record<string, unknown> {
  return { name: "a", image: "x", ...extra };
}

const ENV_NAME_TEXT =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

describe("container rules, as kube 1.30's validateEnv, ValidateResourceRequirements and validateProbe", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  async function refused(body: Record<string, unknown>, message: string): Promise<void> {
    const answer = await server.call("POST", PODS, { body });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.json["message"], message);
  }

  it("refuses bad env names, several value sources, a value with a source and unsupported field paths", async () => {
    const env = [
      { name: "1=a", value: "x" },
      { name: "b", valueFrom: { fieldRef: { fieldPath: "metadata.foo" } } },
      { name: "c", valueFrom: { fieldRef: { fieldPath: "metadata.name" }, configMapKeyRef: { name: "c", key: "k" } } },
      { name: "d", value: "v", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
      { name: "e", valueFrom: { fieldRef: { fieldPath: "metadata.labels" } } },
      { name: "f", valueFrom: { fieldRef: { fieldPath: "metadata.labels['x']" } } },
    ];
    const at = "spec.containers[0].env";
    await refused(
      pod("env", { containers: [container({ env })] }),
      `Pod "env" is invalid: [${at}[0].name: Invalid value: "1=a": ${ENV_NAME_TEXT}, ` +
        `${at}[1].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.foo": error converting fieldPath: field label not supported: metadata.foo, ` +
        `${at}[2].valueFrom: Invalid value: "": may not have more than one field specified at a time, ` +
        `${at}[3].valueFrom: Invalid value: "": may not be specified when \`value\` is not empty, ` +
        `${at}[4].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"]`,
    );
    const ok = await server.call("POST", PODS, {
      body: pod("env-ok", { containers: [container({ env: [{ name: "my.env-name", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }] })] }),
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual((ok.json["spec"] as { containers: { env: unknown[] }[] }).containers[0]?.env[0], {
      name: "my.env-name",
      valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "status.podIP" } },
    });
  });

  it("refuses requests over limits, negative quantities and extended resources whose request differs from the limit", async () => {
    await refused(
      pod("res", { containers: [container({ resources: { requests: { cpu: "2", memory: "-1" }, limits: { cpu: "1" } } })] }),
      'Pod "res" is invalid: [spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1, spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0]',
    );
    await refused(
      pod("ext", { containers: [container({ resources: { requests: { "example.com/foo": "2" }, limits: { "example.com/foo": "1" } } })] }),
      'Pod "ext" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be equal to example.com/foo limit of 1',
    );
    await refused(
      pod("ext2", { containers: [container({ resources: { requests: { "example.com/foo": "1" } } })] }),
      'Pod "ext2" is invalid: spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
    );
    const ok = await server.call("POST", PODS, {
      body: pod("res-ok", { containers: [container({ resources: { requests: { cpu: "500m" }, limits: { cpu: "1" } } })] }),
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it("refuses probes without exactly one handler, negative counts, a liveness success threshold other than 1 and probes on plain init containers", async () => {
    const at = "spec.containers[0]";
    await refused(
      pod("probe", {
        containers: [
          container({ livenessProbe: { successThreshold: 2, periodSeconds: -1, exec: { command: ["a"] }, httpGet: { port: 80 } }, readinessProbe: {} }),
        ],
      }),
      `Pod "probe" is invalid: [${at}.livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type, ${at}.livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0, ${at}.livenessProbe.successThreshold: Invalid value: 2: must be 1, ${at}.readinessProbe: Required value: must specify a handler type]`,
    );
    await refused(
      pod("init", {
        initContainers: [container({ name: "i", lifecycle: { preStop: { exec: { command: ["a"] } } }, startupProbe: { exec: { command: ["a"] } } })],
        containers: [container({})],
      }),
      'Pod "init" is invalid: [spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always, spec.initContainers[0].startupProbe: Forbidden: may not be set for init containers without restartPolicy=Always]',
    );
    const sidecar = await server.call("POST", PODS, {
      body: pod("sidecar", {
        initContainers: [container({ name: "i", restartPolicy: "Always", startupProbe: { exec: { command: ["a"] } } })],
        containers: [container({})],
      }),
    });
    assert.equal(sidecar.status, 201, sidecar.text);
  });

  it("defaults a probe's zero counts as kube does (Go cannot tell 0 from absent)", async () => {
    const ok = await server.call("POST", PODS, {
      body: pod("probe0", {
        containers: [container({ livenessProbe: { successThreshold: 0, periodSeconds: 0, timeoutSeconds: 0, failureThreshold: 0, exec: { command: ["a"] } } })],
      }),
    });
    assert.equal(ok.status, 201, ok.text);
    const probe = (ok.json["spec"] as { containers: { livenessProbe: Record<string, unknown> }[] }).containers[0]?.livenessProbe;
    assert.deepEqual(probe, { exec: { command: ["a"] }, failureThreshold: 3, periodSeconds: 10, successThreshold: 1, timeoutSeconds: 1 });
  });

  it("refuses two ports of one container with the same name", async () => {
    await refused(
      pod("ports", {
        containers: [
          container({
            ports: [
              { containerPort: 80, name: "h" },
              { containerPort: 81, name: "h" },
            ],
          }),
          container({ name: "b", ports: [{ containerPort: 82, name: "h" }] }),
        ],
      }),
      'Pod "ports" is invalid: spec.containers[0].ports[1].name: Duplicate value: "h"',
    );
  });
});
