import type { FieldError } from "../errors.js";
import type { ApiObject } from "../object.js";
import type { SchemaCatalogue } from "./catalogue.js";
import { decodeMismatch } from "./decode-check.js";
import { goZeroObject } from "./go-zeros.js";
import { deepFreeze } from "../../util/deep-json.js";
import { applyDefaults, canonicalizeQuantities } from "./defaults.js";
import { ref, type SchemaTree } from "./node.js";
import { BUILTIN_RULES, type SchemaRules } from "./rules/index.js";
import { unknownFields } from "./unknown-fields.js";
import { SchemaValidator, type ValidationContext } from "./validate.js";

/**
 * The schema stage of one kind, as the generic store runs it on every write:
 * unknown fields (pruned or reported) → defaults → validation. Objects are the store's own
 * copies; `pruneUnknownFields` and `applyDefaults` change them in place.
 */
export interface ObjectSchema {
  /** The catalogue id of the kind's definition. */
  readonly id: string;
  /** The paths of fields the schema does not declare; with `prune`, they are removed. */
  unknownFields(object: ApiObject, options: { readonly prune: boolean }): string[];
  /**
   * For built-in kinds, the first field whose JSON type cannot decode (kube's decoder answers
   * 400 "cannot unmarshal" before any validation runs); undefined when the body decodes.
   */
  decodeMismatch(object: ApiObject): string | undefined;
  /**
   * Fills kube's defaults (schema defaults, then the kind's conditional ones). Answers false
   * when it set nothing, true when it set something, undefined when it cannot tell (built-in kinds).
   */
  applyDefaults(object: ApiObject): boolean | undefined;
  /**
   * Built-in kinds: rewrites the quantities alone, in place, as kube's typed decoding writes them
   * back (the part of `applyDefaults` an apply configuration gets before it is merged).
   */
  canonicalizeQuantities?(object: ApiObject): void;
  /**
   * Built-in kinds: the fields kube's Go zero value of the kind carries (`go-zeros.ts`), made once
   * per kind and shared, deep-frozen (read it, never change it); undefined when none. A create's
   * managedFields are compared against it, as kube's are.
   */
  goZeroObject?(): Record<string, unknown> | undefined;
  /**
   * Schema errors and the kind's rules; `old` is the stored object on update. Metadata is checked
   * elsewhere. `statusOnly` (a status write, which keeps the rest as stored): the schema walk may
   * leave out every top-level field but `status`, whose findings the caller would drop anyway.
   */
  validate(object: ApiObject, old: ApiObject | undefined, statusOnly?: boolean): FieldError[];
  /** Custom resources: their schema's CEL validation rules, run after `validate` (`old` for transition rules). */
  validateRules?(object: ApiObject, old: ApiObject | undefined): Promise<FieldError[]>;
  /** The schema as a tree of nodes (CEL type checking of admission policies); made when asked. */
  tree?(): SchemaTree;
}

/** Top-level fields the schema stage leaves to the store (type meta) and to metadata validation. */
const LEFT_TO_OTHERS: ReadonlySet<string> = new Set(["apiVersion", "kind", "metadata"]);

/** A status write's skip list: every top-level field but `status` (a pod's spec walk is most of a kubelet status write's validation). */
function allButStatus(object: ApiObject): ReadonlySet<string> {
  const skip = new Set(LEFT_TO_OTHERS);
  for (const key in object) if (key !== "status") skip.add(key);
  return skip;
}

/** The schema stage of a kind, or undefined when the catalogue has no schema for it. */
export function objectSchemaFor(
  catalogue: SchemaCatalogue,
  gvk: { readonly group: string; readonly version: string; readonly kind: string },
  rules: SchemaRules = BUILTIN_RULES,
): ObjectSchema | undefined {
  const id = catalogue.idOf(gvk.group, gvk.version, gvk.kind);
  if (id === undefined) return undefined;
  const root = ref(id);
  const validator = new SchemaValidator(catalogue, rules.validators);
  const kindValidator = rules.kindValidators.get(id);
  const contextOf = rules.contexts?.get(id);
  // The profile's key domain for every walk; a kind's own context (StatefulSet's claim volumes) beside it.
  const keyDomain = catalogue.keyDomain;
  const baseContext: ValidationContext | undefined = keyDomain === undefined ? undefined : { keyDomain };
  const contextFor = (object: ApiObject): ValidationContext | undefined => (contextOf === undefined ? baseContext : { ...contextOf(object), ...baseContext });
  let zero: { readonly value: Record<string, unknown> | undefined } | undefined;
  return {
    id,
    unknownFields: (object, options) => unknownFields(catalogue, root, object, options),
    decodeMismatch: (object) => decodeMismatch(catalogue, root, gvk.kind, object),
    tree: () => ({ root, resolve: (node) => catalogue.resolve(node) }),
    applyDefaults: (object) => {
      applyDefaults(catalogue, rules.defaulters, root, object);
      return undefined;
    },
    canonicalizeQuantities: (object) => canonicalizeQuantities(catalogue, root, object),
    goZeroObject: () => {
      // Shared by every create of the kind: frozen rather than copied per create.
      zero ??= { value: deepFreeze(goZeroObject(catalogue, id, catalogue.resolve(root))) };
      return zero.value;
    },
    validate(object, old, statusOnly) {
      const errors = validator.validate(root, object, "", statusOnly === true ? allButStatus(object) : LEFT_TO_OTHERS, contextFor(object));
      if (kindValidator === undefined) return errors;
      const own = kindValidator(object, old);
      const owned = new Set(own.map((error) => error.field));
      return [...errors.filter((error) => !owned.has(error.field)), ...own];
    },
  };
}
