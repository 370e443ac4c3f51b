import { crdFromV1beta1 } from "../../api/crd/crd-v1beta1.js";
import { isPlainObject } from "../../api/object.js";
import type { ProtoShape } from "../../api/proto/numbering.js";
import type { Profile } from "../../api/profile.js";
import { UTF8_VALUES, type ValueEncoding } from "../../storage/index.js";
import { protobufCodec, type ProtobufCodec } from "./codec.js";
import { MAGIC } from "./envelope.js";
import { stringifyJson } from "../../util/deep-json.js";

/**
 * kube-apiserver's storage encoding for the etcd backend: a built-in kind is stored as its
 * protobuf message in the envelope (`k8s\0` + runtime.Unknown, in the storage version the object
 * carries: the registry stores each resource in kube's storage version), everything else as JSON:
 * custom resources, and the kinds kube's extension servers store (CRDs, APIServices) — keys whose
 * first segment is a group (`/stable.example.com/crontabs/…`). Reading accepts both forms.
 *
 * A value is stored as JSON also when the protobuf form would lose part of it (a field the kind's
 * message lacks), when its kind has no message, and for values that are not objects (allocation
 * claims); kube reads JSON values too. CRDs kube wrote (v1beta1 JSON) are read as v1.
 */
export function kubeStorageEncoding(profile: Profile): ValueEncoding {
  const codec = protobufCodec(profile);
  const crdGroup = `apiextensions.${profile.apiDomain}`;
  const crdPrefix = `/${crdGroup}/customresourcedefinitions/`;
  return {
    encode(key, value) {
      const shape = protobufShape(codec, key, value);
      return shape === undefined ? UTF8_VALUES.encode(key, value) : codec.encode(shape.object);
    },
    decode(key, bytes) {
      if (!startsWithMagic(bytes)) {
        const text = UTF8_VALUES.decode(key, bytes);
        return key.startsWith(crdPrefix) ? crdAsV1(text, crdGroup) : text;
      }
      let object: Record<string, unknown>;
      try {
        object = codec.decode(bytes);
      } catch (error) {
        throw new Error(`the stored value of ${key} is not a readable protobuf object: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
      return stringifyJson(object);
    },
  };
}

/** kube-apiserver stores CRDs as v1beta1 JSON: read them as the v1 objects this server keeps. */
function crdAsV1(text: string, group: string): string {
  if (!text.includes(`${group}/v1beta1`)) return text;
  const object: unknown = JSON.parse(text);
  if (!isPlainObject(object) || object["apiVersion"] !== `${group}/v1beta1`) return text;
  return JSON.stringify(crdFromV1beta1(object, `${group}/v1`));
}

/** The object to store as protobuf, or undefined for JSON. */
function protobufShape(codec: ProtobufCodec, key: string, value: string): { readonly object: Record<string, unknown> } | undefined {
  if (!value.startsWith("{") || groupKeyed(key)) return undefined;
  let object: unknown;
  try {
    object = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!isPlainObject(object) || typeof object["apiVersion"] !== "string" || typeof object["kind"] !== "string") return undefined;
  const shape = codec.shapeOf(object["apiVersion"], object["kind"]);
  if (shape === undefined || !fitsShape(object, shape, true)) return undefined;
  return { object };
}

/** Keys of custom resources, CRDs and APIServices start with their group (a name with a dot). */
function groupKeyed(key: string): boolean {
  const end = key.indexOf("/", 1);
  return key.slice(1, end < 0 ? undefined : end).includes(".");
}

function startsWithMagic(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((byte, index) => bytes[index] === byte);
}

/** Whether every property of `value` has a field in `shape` (so the protobuf form keeps it), recursively. */
function fitsShape(value: Readonly<Record<string, unknown>>, shape: ProtoShape, top: boolean): boolean {
  for (const [name, property] of Object.entries(value)) {
    if (top && (name === "apiVersion" || name === "kind")) continue;
    const field = shape.fields.get(name);
    if (field === undefined) return false;
    const inner = field.shape;
    if (inner === undefined || property === null || property === undefined) continue;
    const elements =
      field.cardinality === "list" && Array.isArray(property)
        ? property
        : field.cardinality === "map" && isPlainObject(property)
          ? Object.values(property)
          : [property];
    for (const element of elements) {
      if (isPlainObject(element) && !fitsShape(element, inner, false)) return false;
    }
  }
  return true;
}
