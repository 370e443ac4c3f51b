import type { Profile } from "../api/profile.js";
import type { BodyFormat } from "../codec/decode.js";
import type { ProtobufWire } from "../codec/negotiate.js";
import { protobufCodec, protobufMediaTypes } from "../codec/protobuf/codec.js";

/** Protobuf for an endpoint serving `kind` in `apiVersion`: undefined when the kind has no message (custom resources). */
export function protobufWire(profile: Profile, apiVersion: string, kind: string): ProtobufWire | undefined {
  const codec = protobufCodec(profile);
  return codec.supports(apiVersion, kind) ? { codec, mediaTypes: protobufMediaTypes(profile) } : undefined;
}

/** The body formats of a write: `formats`, plus protobuf when the kind has it. */
export function withProtobuf(formats: readonly BodyFormat[], wire: ProtobufWire | undefined): readonly BodyFormat[] {
  return wire === undefined ? formats : [...formats, "protobuf"];
}
