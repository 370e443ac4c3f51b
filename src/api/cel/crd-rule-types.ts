/**
 * Type checking of a CustomResourceDefinition's validation rule with `self` (and `oldSelf`) typed
 * from the schema node the rule sits on, as kube compiles CRD rules: a field the schema does not
 * declare is `undefined field 'x'`, an operator over mismatched types `found no matching
 * overload …`, and a rule that is not a bool `cel expression must evaluate to a bool`. The types
 * are the admission policies' (`SchemaTypes`): where those say dyn (int-or-string,
 * preserve-unknown-fields, objects without properties) nothing is reported, so a rule kube
 * accepts is never refused here. `oldSelf` under `optionalOldSelf` stays dyn for the same reason.
 */
import { widenHas } from "./has-macro.js";
import type { SchemaNode } from "../schema/node.js";
import { childEnvironment } from "./environment.js";
import { type CelSchema, extensionOf } from "./schema.js";
import { SchemaTypes } from "./schema-types.js";
import { describeTypeError, type TypeCheckResult } from "./typed-policy.js";

const NODE_TYPES = new Set(["string", "integer", "number", "boolean", "object", "array"]);

/** A JSONSchemaProps node in the catalogue's node form (only what typing reads). */
function nodeOf(schema: CelSchema, known: WeakMap<CelSchema, SchemaNode>): SchemaNode {
  const done = known.get(schema);
  if (done !== undefined) return done;
  const type = typeof schema.type === "string" && NODE_TYPES.has(schema.type) ? (schema.type as SchemaNode["type"]) : undefined;
  const node: {
    -readonly [key in keyof SchemaNode]: SchemaNode[key];
  } = {};
  known.set(schema, node);
  if (type !== undefined) node.type = type;
  if (typeof schema.format === "string") node.format = schema.format;
  if (extensionOf(schema, "int-or-string") === true) node.intOrString = true;
  if (extensionOf(schema, "preserve-unknown-fields") === true) node.preserveUnknownFields = true;
  if (extensionOf(schema, "embedded-resource") === true) node.embeddedResource = true;
  if (schema.properties !== undefined) {
    const properties: Record<string, SchemaNode> = Object.create(null) as Record<string, SchemaNode>;
    for (const [name, child] of Object.entries(schema.properties)) properties[name] = child !== null && typeof child === "object" ? nodeOf(child, known) : {};
    node.properties = properties;
  }
  if (schema.items !== undefined && schema.items !== null && typeof schema.items === "object") node.items = nodeOf(schema.items, known);
  if (schema.additionalProperties !== null && typeof schema.additionalProperties === "object")
    node.additionalProperties = nodeOf(schema.additionalProperties, known);
  return node;
}

/** Checks `rule` with `self` typed from `schema` (a resource root when `root`). */
export function typeCheckRule(schema: CelSchema, rule: string, options: { readonly root: boolean; readonly optionalOldSelf: boolean }): TypeCheckResult {
  const env = childEnvironment();
  const types = new SchemaTypes(env);
  const root = nodeOf(schema, new WeakMap());
  // SchemaTypes adds apiVersion, kind and metadata to a resource root, as kube does for `self` at the root.
  const type = options.root ? types.declare({ root, resolve: (node) => node }, "crd.Self") : types.declareNode(root, "crd.Self");
  env.registerVariable("self", type).registerVariable("oldSelf", options.optionalOldSelf ? "dyn" : type);
  let result: ReturnType<typeof env.check>;
  try {
    const parsed = env.parse(rule);
    widenHas(parsed.ast);
    result = parsed.check();
  } catch {
    // The checker itself failed (not a finding about the rule): the untyped compile's answer stands.
    return { kind: "ok", type: "dyn" };
  }
  if (result.valid) return { kind: "ok", type: typeof result.type === "string" ? result.type : "dyn" };
  const described = describeTypeError(rule, result.error);
  // Only the findings cel-go makes too; anything else cel-js says is not held against a rule kube may accept.
  return described.kind === "error" && !KUBE_FINDINGS.test(described.message) ? { kind: "ok", type: "dyn" } : described;
}

/** The type errors reported, in cel-go's words (see `describeTypeError`). */
const KUBE_FINDINGS = /^(undefined field '|found no matching overload for |type '.*' does not support field selection$)/;
