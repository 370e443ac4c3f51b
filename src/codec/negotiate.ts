import { ApiError } from "../api/errors.js";
import { queryIncludeObject } from "../request/query/index.js";
import { parseAccept, type MediaType } from "./media-type.js";
import type { ProtobufCodec } from "./protobuf/codec.js";

/** Protobuf for one endpoint: the codec, and the media types that ask for it (the profile's first). */
export interface ProtobufWire {
  readonly codec: ProtobufCodec;
  readonly mediaTypes: readonly string[];
}

/** A protobuf answer: the codec, and the media type the client spelled (the response's Content-Type). */
export interface ProtobufAnswer {
  readonly codec: ProtobufCodec;
  readonly mediaType: string;
}

/** What a response is rendered as. */
export type Representation =
  | { readonly kind: "json" }
  | ({ readonly kind: "protobuf" } & ProtobufAnswer)
  | { readonly kind: "yaml" }
  | { readonly kind: "table"; readonly group: string; readonly version: "v1" | "v1beta1"; readonly includeObject: "None" | "Metadata" | "Object" }
  | { readonly kind: "discovery"; readonly group: string; readonly version: "v2" | "v2beta1" }
  | {
      readonly kind: "partial";
      readonly group: string;
      readonly version: "v1" | "v1beta1";
      readonly list: boolean;
      /** Set when the view is asked for in protobuf. */
      readonly protobuf?: ProtobufAnswer;
    };

export interface NegotiationOptions {
  /** The meta group Table documents belong to (`meta.<apiDomain>`). */
  readonly metaGroup: string;
  /** Whether this endpoint can render Tables (GET of resources). */
  readonly tables: boolean;
  /** The aggregated-discovery group (`apidiscovery.<apiDomain>`) when this endpoint serves it. */
  readonly discoveryGroup?: string;
  /**
   * Other API domains whose spellings of those groups stock clients hard-code (under the orch
   * profile kubectl asks for Tables in kube's meta group). A view asked for in one of them is answered in
   * that spelling; `group` in the representation says which.
   */
  readonly clientApiDomains?: readonly string[];
  readonly yaml?: boolean;
  /** Set when the endpoint's kind has a protobuf form (built-in kinds; never custom resources). */
  readonly protobuf?: ProtobufWire;
}

/** Whether `group` is `own` or its spelling under one of the client domains. */
function spelledAs(group: string | undefined, own: string, options: NegotiationOptions): group is string {
  if (group === undefined) return false;
  if (group === own) return true;
  const prefix = own.slice(0, own.indexOf(".") + 1);
  return (options.clientApiDomains ?? []).some((domain) => group === `${prefix}${domain}`);
}

function isJson(type: string): boolean {
  return type === "application/json" || type === "application/*" || type === "*/*";
}

function protobufAnswer(entry: MediaType, options: NegotiationOptions): ProtobufAnswer | undefined {
  if (options.protobuf === undefined || !options.protobuf.mediaTypes.includes(entry.type)) return undefined;
  return { codec: options.protobuf.codec, mediaType: entry.type };
}

function pick(entry: MediaType, options: NegotiationOptions, query: URLSearchParams): Representation | undefined {
  const protobuf = protobufAnswer(entry, options);
  const as = entry.params["as"];
  if (as === "APIGroupDiscoveryList") {
    const group = entry.params["g"];
    if (options.discoveryGroup === undefined || !isJson(entry.type) || !spelledAs(group, options.discoveryGroup, options)) return undefined;
    const version = entry.params["v"];
    return version === "v2" || version === "v2beta1" ? { kind: "discovery", group, version } : undefined;
  }
  if (as !== undefined) {
    // Tables and PartialObjectMetadata(List) are meta-group views of resources.
    const group = entry.params["g"];
    if (!options.tables || !(isJson(entry.type) || protobuf !== undefined) || !spelledAs(group, options.metaGroup, options)) return undefined;
    const version = entry.params["v"];
    if (version !== "v1" && version !== "v1beta1") return undefined;
    if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList")
      return { kind: "partial", group, version, list: as === "PartialObjectMetadataList", ...(protobuf === undefined ? {} : { protobuf }) };
    // Tables have no protobuf form (as in kube).
    if (as !== "Table" || protobuf !== undefined) return undefined;
    return { kind: "table", group, version, includeObject: queryIncludeObject(query) };
  }
  if (protobuf !== undefined) return { kind: "protobuf", ...protobuf };
  if (isJson(entry.type)) return { kind: "json" };
  if ((entry.type === "application/yaml" || entry.type === "application/x-yaml") && options.yaml !== false) return { kind: "yaml" };
  return undefined;
}

/**
 * Chooses the representation from the Accept header: the first acceptable entry wins;
 * none acceptable is 406 NotAcceptable.
 */
export function negotiate(accept: string | undefined, options: NegotiationOptions, query: URLSearchParams): Representation {
  const entries = parseAccept(accept);
  for (const entry of entries) {
    const representation = pick(entry, options, query);
    if (representation !== undefined) return representation;
  }
  const supported = ["application/json", "application/yaml", ...(options.protobuf?.mediaTypes.slice(0, 1) ?? [])].join(", ");
  throw new ApiError(406, "NotAcceptable", `only the following media types are accepted: ${supported}`);
}
