import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatQuantityIn } from "../../api/quantity.js";
import { podResources, type Amounts } from "./pod-resources.js";

const texts = (amounts: Amounts): Record<string, string> =>
  Object.fromEntries([...amounts].map(([name, amount]) => [name, formatQuantityIn(amount.value, amount.format)]));

const container = (name: string, requests: Record<string, string>, limits: Record<string, string> = {}, restartPolicy?: string) => ({
  name,
  resources: { requests, limits },
  ...(restartPolicy === undefined ? {} : { restartPolicy }),
});

describe("podResources (kube's PodRequests and PodLimits)", () => {
  it("sums the regular containers, keeping the first addend's format", () => {
    const spec = { containers: [container("a", { cpu: "500m", memory: "1G" }), container("b", { cpu: "1", memory: "512M" })] };
    assert.deepEqual(texts(podResources(spec, "requests")), { cpu: "1500m", memory: "1512M" });
  });

  it("takes the larger of the containers' sum and the largest init container, not their sum", () => {
    const spec = {
      initContainers: [container("init", { cpu: "1", memory: "1500M" })],
      containers: [container("app", { cpu: "500m", memory: "1G" })],
    };
    assert.deepEqual(texts(podResources(spec, "requests")), { cpu: "1", memory: "1500M" });
  });

  it("adds sidecars (init containers with restartPolicy Always) to the sum and to every later init step", () => {
    const spec = {
      initContainers: [container("sidecar", { cpu: "250m" }, {}, "Always"), container("migrate", { cpu: "1" })],
      containers: [container("app", { cpu: "500m" })],
    };
    // The sum: 500m + 250m; the migrate step: 1 + 250m (the sidecar already running).
    assert.deepEqual(texts(podResources(spec, "requests")), { cpu: "1250m" });
  });

  it("adds the overhead to requests, and to limits only where a limit is set", () => {
    const spec = { overhead: { cpu: "250m", memory: "120Mi" }, containers: [container("app", { cpu: "1", memory: "1Gi" }, { memory: "2Gi" })] };
    assert.deepEqual(texts(podResources(spec, "requests")), { cpu: "1250m", memory: "1144Mi" });
    assert.deepEqual(texts(podResources(spec, "limits")), { memory: "2168Mi" });
  });

  it("a zero takes the format of what is added to it", () => {
    const spec = { containers: [container("a", { memory: "0" }), container("b", { memory: "1Gi" })] };
    assert.deepEqual(texts(podResources(spec, "requests")), { memory: "1Gi" });
  });
});
