import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../api/errors.js";
import type { ProtoField, ProtoShape } from "../../api/proto/numbering.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../api/profile.js";
import { builtinCatalogue } from "../../api/schema/catalogue.js";
import { BUILTIN_KINDS, EXCHANGED_KINDS } from "../../api/schema/kinds/index.js";
import { protobufCodec } from "./codec.js";
import { watchFrame } from "./envelope.js";
import { decodeMessage, encodeMessage, MAX_DEPTH } from "./message.js";

const codec = protobufCodec(KUBERNETES_PROFILE);
const ascii = (text: string): number[] => [...Buffer.from(text)];
const bytes = (...parts: (number | number[])[]): Buffer => Buffer.from(parts.flat());

// Worked out by hand from kube's field numbers (ConfigMap: metadata=1 data=2; ObjectMeta: name=1
// namespace=3; map entries key=1 value=2) and the wire rules (tag = number << 3 | wire type;
// length-delimited = 2, varint = 0).
const CONFIGMAP_RAW = bytes(
  [0x0a, 0x0f], // metadata (1, LEN 15)
  [0x0a, 0x04, ...ascii("demo")], // name (1)
  [0x1a, 0x07, ...ascii("default")], // namespace (3)
  [0x12, 0x06], // data entry (2, LEN 6)
  [0x0a, 0x01, ...ascii("a"), 0x12, 0x01, ...ascii("b")],
);
const CONFIGMAP_ENVELOPE = bytes(
  [0x6b, 0x38, 0x73, 0x00], // magic "k8s\0"
  [0x0a, 0x0f, 0x0a, 0x02, ...ascii("v1"), 0x12, 0x09, ...ascii("ConfigMap")], // typeMeta (1): apiVersion (1), kind (2)
  [0x12, CONFIGMAP_RAW.length],
  [...CONFIGMAP_RAW], // raw (2)
  [0x1a, 0x00, 0x22, 0x00], // contentEncoding (3), contentType (4): empty
);
const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "demo", namespace: "default" }, data: { a: "b" } };

describe("protobuf codec: golden bytes", () => {
  it("a ConfigMap is the envelope around its message", () => {
    assert.equal(CONFIGMAP_RAW.length, 25);
    assert.deepEqual(Buffer.from(codec.encode(CONFIGMAP)), CONFIGMAP_ENVELOPE);
    assert.deepEqual(codec.decode(CONFIGMAP_ENVELOPE), CONFIGMAP);
  });

  it("a Pod: nested messages, a repeated message, an embedded Go struct (Volume.volumeSource), a varint", () => {
    // PodSpec volumes=1 containers=2; Volume name=1 volumeSource=2 → hostPath=1 → path=1;
    // Container name=1 image=2 ports=6 → containerPort=3 (varint 80 = 0x50); PodStatus phase=1.
    const volume = [0x0a, 0x01, ...ascii("v"), 0x12, 0x06, 0x0a, 0x04, 0x0a, 0x02, ...ascii("/h")];
    const container = [0x0a, 0x01, ...ascii("c"), 0x12, 0x01, ...ascii("i"), 0x32, 0x02, 0x18, 0x50];
    const spec = [0x0a, volume.length, ...volume, 0x12, container.length, ...container];
    const raw = [0x0a, 0x03, 0x0a, 0x01, ...ascii("p"), 0x12, spec.length, ...spec, 0x1a, 0x09, 0x0a, 0x07, ...ascii("Running")];
    const expected = bytes(
      [0x6b, 0x38, 0x73, 0x00],
      [0x0a, 0x09, 0x0a, 0x02, ...ascii("v1"), 0x12, 0x03, ...ascii("Pod")],
      [0x12, raw.length],
      raw,
      [0x1a, 0x00, 0x22, 0x00],
    );
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { volumes: [{ name: "v", hostPath: { path: "/h" } }], containers: [{ name: "c", image: "i", ports: [{ containerPort: 80 }] }] },
      status: { phase: "Running" },
    };
    assert.deepEqual(Buffer.from(codec.encode(pod)), expected);
    assert.deepEqual(codec.decode(expected), pod);
  });

  it("a watch frame: 4-byte big-endian length, WatchEvent {type=1, object=2 {raw=1: the enveloped object}}", () => {
    const rawExtension = [0x0a, CONFIGMAP_ENVELOPE.length, ...CONFIGMAP_ENVELOPE];
    const event = [0x0a, 0x05, ...ascii("ADDED"), 0x12, rawExtension.length, ...rawExtension];
    const expected = bytes([0x00, 0x00, 0x00, event.length], event);
    assert.equal(event.length, 63);
    assert.deepEqual(Buffer.from(watchFrame("ADDED", codec.encode(CONFIGMAP))), expected);
    assert.deepEqual(Buffer.from(codec.frameOf("ADDED", CONFIGMAP)), expected);
  });
});

describe("protobuf codec: what Go clients send", () => {
  it("kubectl 1.33's ConfigMap body (every non-pointer field written, zeros included) decodes without the zeros", () => {
    // Captured from `kubectl.1.33 create configmap demo --from-literal=a=b -v=9`.
    const body = Buffer.from(
      "6b 38 73 00 0a 0f 0a 02 76 31 12 09 43 6f 6e 66 69 67 4d 61 70 12 1e 0a 14 0a 04 64 65 6d 6f 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 06 0a 01 61 12 01 62 1a 00 22 00".replaceAll(
        " ",
        "",
      ),
      "hex",
    );
    assert.deepEqual(codec.decode(body), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "demo" }, data: { a: "b" } });
  });

  it("zeros of pointer fields and fields without omitempty are kept, other zeros dropped", () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", generation: 0, generateName: "" },
      spec: {
        replicas: 0,
        paused: false,
        minReadySeconds: 0,
        template: {
          spec: { automountServiceAccountToken: false, enableServiceLinks: false, containers: [{ name: "c", ports: [{ containerPort: 0, hostPort: 0 }] }] },
        },
      },
    };
    assert.deepEqual(codec.decode(codec.encode(deployment)), {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: {
        replicas: 0,
        template: { spec: { automountServiceAccountToken: false, enableServiceLinks: false, containers: [{ name: "c", ports: [{ containerPort: 0 }] }] } },
      },
    });
  });

  it("Go's zero time (seconds -62135596800) and an empty Time are no value; an epoch time is one", () => {
    const zeroTime = [0x08, ...varint(-62135596800n), 0x10, 0x00];
    const zero = [0x42, zeroTime.length, ...zeroTime];
    const epoch = [0x42, 0x04, 0x08, 0x00, 0x10, 0x00];
    const meta = (time: number[]): Buffer => envelopeOf("v1", "ConfigMap", [0x0a, time.length + 3, 0x0a, 0x01, ...ascii("x"), ...time]);
    assert.equal(zeroTime.length, 13, "a negative varint takes ten bytes");
    assert.deepEqual(codec.decode(meta(zero)), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
    assert.deepEqual(codec.decode(meta([0x42, 0x00])), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
    assert.deepEqual(codec.decode(meta(epoch)), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", creationTimestamp: "1970-01-01T00:00:00Z" } });
  });

  it("Secret data is raw bytes on the wire and base64 in JSON; a TokenRequest posted in kube's group under orch decodes", () => {
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { k: Buffer.from([0, 255, 1]).toString("base64") }, type: "Opaque" };
    const encoded = Buffer.from(codec.encode(secret));
    assert.ok(encoded.includes(Buffer.from([0x12, 0x03, 0x00, 0xff, 0x01])), "the value's three bytes, raw");
    assert.deepEqual(codec.decode(encoded), secret);
    const orch = protobufCodec(ORCH_PROFILE);
    const request = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: {}, spec: { audiences: ["a"], expirationSeconds: 600 } };
    assert.deepEqual(orch.decode(orch.encode(request)), request);
  });
});

describe("protobuf codec: zeros kube's Go types keep (pointers, tags without omitempty)", () => {
  // Each message's bytes worked out by hand from kube's field numbers: a Go client writes a set
  // pointer or a field without omitempty even when it holds zero, and Go's JSON then shows the zero.
  // Found lost by the parity sweep 9 live check (`kubectl.1.33 debug --copy-to` of a pod with
  // `windowsOptions.hostProcess: false`); the others are the same kind of field, checked against
  // kube's types (`*bool`, `*string`, `*int64`, `json:"exitCode"`, …).
  const pod = codec.shapeOf("v1", "Pod");
  const at = (path: string): ProtoShape => {
    let shape = pod;
    for (const name of path.split(".")) shape = shape?.fields.get(name)?.shape;
    assert.ok(shape !== undefined, `a message at ${path}`);
    return shape;
  };
  const cases: readonly (readonly [string, Record<string, unknown>, number[]])[] = [
    [
      "spec.containers.securityContext.windowsOptions",
      { gmsaCredentialSpecName: "", gmsaCredentialSpec: "", runAsUserName: "", hostProcess: false },
      [0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x20, 0x00],
    ],
    ["spec.securityContext.seccompProfile", { type: "Localhost", localhostProfile: "" }, [0x0a, 0x09, ...ascii("Localhost"), 0x12, 0x00]],
    ["spec.containers.securityContext.appArmorProfile", { type: "Localhost", localhostProfile: "" }, [0x0a, 0x09, ...ascii("Localhost"), 0x12, 0x00]],
    ["spec.hostAliases", { ip: "" }, [0x0a, 0x00]],
    ["spec.containers.env.valueFrom.resourceFieldRef", { resource: "" }, [0x12, 0x00]],
    ["spec.containers.resources.claims", { name: "" }, [0x0a, 0x00]],
    ["spec.containers.resizePolicy", { resourceName: "", restartPolicy: "" }, [0x0a, 0x00, 0x12, 0x00]],
    ["spec.containers.livenessProbe", { terminationGracePeriodSeconds: 0 }, [0x38, 0x00]],
    ["spec.containers.livenessProbe.grpc", { port: 0, service: "" }, [0x08, 0x00, 0x12, 0x00]],
    ["spec.containers.lifecycle.preStop.sleep", { seconds: 0 }, [0x08, 0x00]],
    ["status.containerStatuses.state.terminated", { exitCode: 0 }, [0x08, 0x00]],
    ["spec.volumes.hostPath", { path: "", type: "" }, [0x0a, 0x00, 0x12, 0x00]],
    ["spec.containers.volumeMounts", { name: "v", mountPath: "/m", mountPropagation: "" }, [0x0a, 0x01, ...ascii("v"), 0x1a, 0x02, ...ascii("/m"), 0x2a, 0x00]],
    ["spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution", { topologyKey: "" }, [0x1a, 0x00]],
  ];
  for (const [path, value, expected] of cases) {
    it(`${at(path).message} ${Object.keys(value).join(", ")}: written and read back with the zeros`, () => {
      const shape = at(path);
      assert.deepEqual([...encodeMessage(value, shape)], expected);
      assert.deepEqual(decodeMessage(Buffer.from(expected), shape), value);
    });
  }

  it("a kubelet's Node status keeps its empty nodeInfo strings, Port 0 and address strings (no omitempty in kube's types)", () => {
    // Node status=3 → {addresses=5 {type=1 "InternalIP", address=2 ""}, daemonEndpoints=6 {kubeletEndpoint=1 {Port=1: 0}},
    // nodeInfo=7 {kubeletVersion=7 "v1.33.1", kubeProxyVersion=8 ""}}.
    const address = [0x0a, 0x0a, ...ascii("InternalIP"), 0x12, 0x00];
    const info = [0x3a, 0x07, ...ascii("v1.33.1"), 0x42, 0x00];
    const status = [0x2a, address.length, ...address, 0x32, 0x04, 0x0a, 0x02, 0x08, 0x00, 0x3a, info.length, ...info];
    assert.deepEqual(codec.decode(envelopeOf("v1", "Node", [0x1a, status.length, ...status])), {
      apiVersion: "v1",
      kind: "Node",
      status: {
        addresses: [{ type: "InternalIP", address: "" }],
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: { kubeletVersion: "v1.33.1", kubeProxyVersion: "" },
      },
    });
  });

  it("a zero Go writes for a non-pointer omitempty field is dropped: EndpointAddress.hostname", () => {
    // Endpoints subsets=2 → addresses=1 → {ip=1 "10.0.0.1", hostname=3 "", nodeName=4 ""}: Go always writes the
    // string hostname (omitempty, not a pointer: kube's JSON omits it) and writes nodeName only when set (a pointer).
    const address = [0x0a, 0x08, ...ascii("10.0.0.1"), 0x1a, 0x00, 0x22, 0x00];
    const subset = [0x0a, address.length, ...address];
    assert.deepEqual(codec.decode(envelopeOf("v1", "Endpoints", [0x12, subset.length, ...subset])), {
      apiVersion: "v1",
      kind: "Endpoints",
      subsets: [{ addresses: [{ ip: "10.0.0.1", nodeName: "" }] }],
    });
  });

  it("a whole Pod from a Go client keeps hostProcess: false and exitCode: 0", () => {
    // spec=2 → containers=2 → {name=1 "c", securityContext=15 → windowsOptions=10 → hostProcess=4: 0};
    // status=3 → containerStatuses=8 → {name=1 "c", state=2 → terminated=3 → exitCode=1: 0}.
    const container = [0x0a, 0x01, ...ascii("c"), 0x7a, 0x04, 0x52, 0x02, 0x20, 0x00];
    const status = [0x0a, 0x01, ...ascii("c"), 0x12, 0x04, 0x1a, 0x02, 0x08, 0x00];
    const raw = [0x12, container.length + 2, 0x12, container.length, ...container, 0x1a, status.length + 2, 0x42, status.length, ...status];
    assert.deepEqual(codec.decode(envelopeOf("v1", "Pod", raw)), {
      apiVersion: "v1",
      kind: "Pod",
      spec: { containers: [{ name: "c", securityContext: { windowsOptions: { hostProcess: false } } }] },
      status: { containerStatuses: [{ name: "c", state: { terminated: { exitCode: 0 } } }] },
    });
  });
});

describe("protobuf codec: pointer and untagged zeros of every served group (sweep 13)", () => {
  // presence.ts compared with kube's Go types struct by struct: these zeros were dropped before
  // (`*string`, `*int32`, `*bool`, or a tag without omitempty). Bytes worked out by hand from the
  // field numbers in fields/*.ts.
  const at = (apiVersion: string, kind: string, path: string): ProtoShape => {
    let shape = codec.shapeOf(apiVersion, kind);
    for (const name of path.split(".")) shape = shape?.fields.get(name)?.shape;
    assert.ok(shape !== undefined, `a message at ${kind} ${path}`);
    return shape;
  };
  const cases: readonly (readonly [string, string, string, Record<string, unknown>, number[]])[] = [
    // CSIVolumeSource driver=1 readOnly=2 fsType=3 (*bool, *string).
    ["v1", "Pod", "spec.volumes.csi", { driver: "d", readOnly: false, fsType: "" }, [0x0a, 0x01, ...ascii("d"), 0x10, 0x00, 0x1a, 0x00]],
    // NFSVolumeSource server=1 path=2 (no omitempty).
    ["v1", "Pod", "spec.volumes.nfs", { server: "", path: "" }, [0x0a, 0x00, 0x12, 0x00]],
    // ISCSIVolumeSource targetPortal=1 iqn=2 lun=3 (no omitempty) initiatorName=12 (*string).
    ["v1", "Pod", "spec.volumes.iscsi", { targetPortal: "", iqn: "", lun: 0, initiatorName: "" }, [0x0a, 0x00, 0x12, 0x00, 0x18, 0x00, 0x62, 0x00]],
    ["v1", "Pod", "spec.volumes.persistentVolumeClaim", { claimName: "" }, [0x0a, 0x00]],
    ["v1", "Pod", "spec.dnsConfig.options", { value: "" }, [0x12, 0x00]],
    ["v1", "Pod", "spec.securityContext.sysctls", { name: "", value: "" }, [0x0a, 0x00, 0x12, 0x00]],
    ["v1", "Pod", "spec.os", { name: "" }, [0x0a, 0x00]],
    // ServiceSpec sessionAffinityConfig=14 → clientIP=1 → timeoutSeconds=1 (*int32).
    ["v1", "Service", "spec.sessionAffinityConfig.clientIP", { timeoutSeconds: 0 }, [0x08, 0x00]],
    // StatefulSetSpec serviceName=5 (no omitempty in 1.30).
    ["apps/v1", "StatefulSet", "spec", { serviceName: "" }, [0x2a, 0x00]],
    // LimitedPriorityLevelConfiguration nominalConcurrencyShares=1 lendablePercent=3 borrowingLimitPercent=4 (*int32).
    [
      "flowcontrol.apiserver.k8s.io/v1",
      "PriorityLevelConfiguration",
      "spec.limited",
      { nominalConcurrencyShares: 0, lendablePercent: 0, borrowingLimitPercent: 0 },
      [0x08, 0x00, 0x18, 0x00, 0x20, 0x00],
    ],
    // NetworkPolicy spec=2 → ingress=2 → from=2 → ipBlock=3 → cidr=1 (no omitempty).
    ["networking.k8s.io/v1", "NetworkPolicy", "spec.ingress.from.ipBlock", { cidr: "" }, [0x0a, 0x00]],
  ];
  for (const [apiVersion, kind, path, value, expected] of cases) {
    it(`${kind} ${path} ${Object.keys(value).join(", ")}: read back with the zeros`, () => {
      const shape = at(apiVersion, kind, path);
      assert.deepEqual([...encodeMessage(value, shape)], expected);
      assert.deepEqual(decodeMessage(Buffer.from(expected), shape), value);
    });
  }
});

describe("protobuf codec: the Eviction a Go client posts to pods/{name}/eviction", () => {
  it("policy/v1 Eviction is {metadata=1, deleteOptions=2}; DeleteOptions inside has no type meta on the wire", () => {
    // ObjectMeta name=1 namespace=3; DeleteOptions gracePeriodSeconds=1 (varint 0, a pointer) propagationPolicy=4.
    const metadata = [0x0a, 0x01, ...ascii("p"), 0x1a, 0x02, ...ascii("ns")];
    const options = [0x08, 0x00, 0x22, 0x0a, ...ascii("Foreground")];
    const raw = [0x0a, metadata.length, ...metadata, 0x12, options.length, ...options];
    const eviction = {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "p", namespace: "ns" },
      deleteOptions: { gracePeriodSeconds: 0, propagationPolicy: "Foreground" },
    };
    assert.deepEqual(Buffer.from(codec.encode(eviction)), envelopeOf("policy/v1", "Eviction", raw));
    assert.deepEqual(codec.decode(envelopeOf("policy/v1", "Eviction", raw)), eviction);
    // A client that fills DeleteOptions' TypeMeta in JSON: it has no field, as in kube's message.
    const typed = { ...eviction, deleteOptions: { apiVersion: "v1", kind: "DeleteOptions", ...eviction.deleteOptions } };
    assert.deepEqual(codec.decode(codec.encode(typed)), eviction);
  });
});

describe("protobuf codec: round trip of every built-in kind at every served version", () => {
  for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
    it(`JSON → protobuf → JSON is identical (${profile.name} profile), lists too`, () => {
      const catalogue = builtinCatalogue(profile);
      const profileCodec = protobufCodec(profile);
      let kinds = 0;
      for (const declaration of [...BUILTIN_KINDS, ...EXCHANGED_KINDS]) {
        for (const gvk of catalogue.kindsOf(declaration.id)) {
          const apiVersion = gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
          const shape = catalogue.protoShape(gvk.group, gvk.version, gvk.kind);
          assert.ok(shape !== undefined, `${apiVersion} ${gvk.kind} has a message`);
          const object = { apiVersion, kind: gvk.kind, ...sample(shape, 0) };
          assert.deepEqual(profileCodec.decode(profileCodec.encode(object)), object, `${apiVersion} ${gvk.kind}`);
          const list = {
            apiVersion,
            kind: `${gvk.kind}List`,
            metadata: { resourceVersion: "12", continue: "c", remainingItemCount: 0 },
            items: [object, object],
          };
          assert.deepEqual(
            profileCodec.decode(
              Buffer.concat(
                profileCodec.encodeList(
                  apiVersion,
                  list.kind,
                  list.metadata,
                  list.items.map((item) => ({ json: JSON.stringify(item) })),
                ),
              ),
            ),
            list,
          );
          kinds++;
        }
      }
      assert.ok(kinds >= 60, `only ${kinds} kinds`);
    });
  }

  it("Status, DeleteOptions and PartialObjectMetadataList have their meta messages", () => {
    const status = {
      apiVersion: "v1",
      kind: "Status",
      metadata: {},
      status: "Failure",
      message: "no",
      reason: "NotFound",
      details: { name: "x", kind: "pods", causes: [{ reason: "r", message: "m", field: "f" }] },
      code: 404,
    };
    assert.deepEqual(codec.decode(codec.encode(status)), status);
    const options = { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0, propagationPolicy: "Foreground", preconditions: { uid: "u" } };
    assert.deepEqual(codec.decode(codec.encode(options)), options);
    const partial = {
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadataList",
      metadata: { resourceVersion: "3" },
      items: [{ apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: { name: "a", labels: { x: "y" } } }],
    };
    assert.deepEqual(codec.decode(codec.encode(partial)), partial);
  });
});

describe("protobuf codec: fields a newer client knows", () => {
  it("skips field numbers the message does not declare, as kube's generated code does", () => {
    // Field 15 (varint), 16 (bytes) and 17 (fixed64) after a whole ConfigMap: a 1.33 client's additions.
    const extra = [0x78, 0x01, 0x82, 0x01, 0x02, 0x68, 0x69, 0x89, 0x01, 1, 2, 3, 4, 5, 6, 7, 8];
    assert.deepEqual(codec.decode(envelopeOf("v1", "ConfigMap", [...CONFIGMAP_RAW, ...extra])), codec.decode(CONFIGMAP_ENVELOPE));
  });

  it("reads a Pod whose status carries kubectl 1.33's observedGeneration (PodStatus field 17)", () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    const body = codec.encode(pod);
    const shape = codec.shapeOf("v1", "Pod");
    assert.ok(shape !== undefined);
    // The pod's own bytes (after the envelope's), then field 3 (status): phase "Pending" and field 17 = 0.
    const podBytes = [...encodeMessage(pod, shape)];
    const status = [0x0a, 7, ...Buffer.from("Pending"), 0x88, 0x01, 0x00];
    const decoded = codec.decode(envelopeOf("v1", "Pod", [...podBytes, 0x1a, status.length, ...status]));
    assert.deepEqual(decoded["status"], { phase: "Pending" });
    assert.deepEqual(decoded["spec"], codec.decode(body)["spec"]);
  });
});

describe("protobuf codec: bad input is a 400 naming what is wrong", () => {
  const cases: readonly (readonly [string, Buffer, RegExp])[] = [
    ["wrong magic", Buffer.concat([Buffer.from("k9s\0"), CONFIGMAP_ENVELOPE.subarray(4)]), /magic prefix/],
    ["truncated frame", CONFIGMAP_ENVELOPE.subarray(0, CONFIGMAP_ENVELOPE.length - 10), /truncated|remain/],
    ["an unknown field cut short", envelopeOf("v1", "ConfigMap", [...CONFIGMAP_RAW, 0x7a, 0x05, 0x01]), /truncated/],
    ["wrong wire type", envelopeOf("v1", "ConfigMap", [0x08, 0x01]), /field 1 of core\.v1\.ConfigMap has wire type 0, expected 2/],
    ["length past the body", envelopeOf("v1", "ConfigMap", [0x0a, 0x7f, 0x0a]), /says 127 bytes but only 1 remain/],
    ["truncated varint", envelopeOf("v1", "ConfigMap", [0x0a, 0x03, 0x38, 0xff, 0xff]), /truncated/],
    ["too deep", envelopeOf("apiextensions.k8s.io/v1", "CustomResourceDefinition", deepSchema(MAX_DEPTH + 5)), /nested more than 100/],
    ["unknown kind", envelopeOf("example.com/v1", "Widget", []), /no message for kind "Widget"/],
    ["bad JSON in a raw extension", envelopeOf("apps/v1", "ControllerRevision", [0x12, 0x03, 0x0a, 0x01, 0x7b]), /does not hold JSON/],
  ];
  for (const [name, body, message] of cases) {
    it(name, () => {
      assert.throws(
        () => codec.decode(body),
        (error: unknown) => error instanceof ApiError && error.code === 400 && message.test(error.message),
      );
    });
  }
});

function envelopeOf(apiVersion: string, kind: string, raw: number[]): Buffer {
  const typeMeta = [0x0a, apiVersion.length, ...ascii(apiVersion), 0x12, kind.length, ...ascii(kind)];
  return bytes([0x6b, 0x38, 0x73, 0x00], [0x0a, typeMeta.length], typeMeta, [0x12, ...varint(BigInt(raw.length))], raw, [0x1a, 0x00, 0x22, 0x00]);
}

function varint(value: bigint): number[] {
  let rest = BigInt.asUintN(64, value);
  const out: number[] = [];
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return out;
}

/** A CRD whose spec.versions[0].schema.openAPIV3Schema nests `not` (JSONSchemaProps field 28) `levels` deep. */
function deepSchema(levels: number): number[] {
  let schema: number[] = [];
  for (let index = 0; index < levels; index++) schema = [0xe2, 0x01, ...varint(BigInt(schema.length)), ...schema];
  const validation = [0x0a, ...varint(BigInt(schema.length)), ...schema]; // openAPIV3Schema=1
  const version = [0x22, ...varint(BigInt(validation.length)), ...validation]; // schema=4
  const spec = [0x3a, ...varint(BigInt(version.length)), ...version]; // versions=7
  return [0x12, ...varint(BigInt(spec.length)), ...spec]; // spec=2
}

/** A value for every field of a shape: non-zero scalars, two list elements, one map entry; JSONSchemaProps three deep. */
function sample(shape: ProtoShape, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of shape.fields) {
    if (field.shape !== undefined && depth >= 3) continue;
    const value = sampleValue(name, field, shape, depth);
    if (value === undefined) continue;
    if (field.cardinality === "list") out[name] = [value, value];
    else if (field.cardinality === "map") out[name] = { key: value };
    else out[name] = value;
  }
  return out;
}

function sampleValue(name: string, field: ProtoField, shape: ProtoShape, depth: number): unknown {
  if (field.shape !== undefined) return sample(field.shape, depth + 1);
  switch (field.leaf) {
    case undefined:
      break;
    case "meta.v1.Time":
      return "2024-01-02T03:04:05Z";
    case "meta.v1.MicroTime":
      return "2024-01-02T03:04:05.123456Z";
    case "resource.Quantity":
      return "1500m";
    case "intstr.IntOrString":
      return name.length % 2 === 0 ? 8080 : "http";
    case "runtime.RawExtension":
    case "apiextensions.v1.JSON":
      return { apiVersion: "v1", kind: "Thing", list: [1, "two", null, { deep: true }], empty: {} };
    case "meta.v1.FieldsV1":
      return { "f:metadata": { "f:labels": { ".": {} } } };
    case "apiextensions.v1.JSONSchemaPropsOrBool":
      return depth >= 3 ? false : sample(shape, depth + 1);
    case "apiextensions.v1.JSONSchemaPropsOrArray":
      return depth >= 3 ? [{ type: "string" }] : sample(shape, depth + 1);
    case "apiextensions.v1.JSONSchemaPropsOrStringArray":
      return ["a", "b"];
    default:
      if (field.leaf.endsWith(".ExtraValue")) return ["x", "y"];
      return {};
  }
  switch (field.scalar) {
    case "int":
      return field.keepsZero === true ? 0 : -7;
    case "bool":
      return field.keepsZero !== true;
    case "double":
      return 2.5;
    case "bytes":
      return Buffer.from("bytes\u0000\u00ff").toString("base64");
    default:
      return `${name}-value`;
  }
}
