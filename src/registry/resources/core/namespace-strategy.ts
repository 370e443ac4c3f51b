import type { FieldError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import { invalidValue } from "../../../api/schema/field-path.js";
import { validateQualifiedName } from "../../../api/validation.js";
import type { Strategy } from "../../definition.js";

function specOf(object: ApiObject): Record<string, unknown> {
  const spec = object["spec"];
  if (isPlainObject(spec)) return spec;
  const fresh: Record<string, unknown> = {};
  object["spec"] = fresh;
  return fresh;
}

function finalizersOf(object: ApiObject): unknown[] {
  const finalizers = isPlainObject(object["spec"]) ? object["spec"]["finalizers"] : undefined;
  return Array.isArray(finalizers) ? finalizers : [];
}

/**
 * Namespaces: the name label is set and kept, the namespace controller's finalizer is added on
 * create, `status.phase` is Active until a delete makes it Terminating; `spec.finalizers` holds the
 * deletion until the controller empties the namespace and clears it through `finalize`.
 */
export function namespaceStrategy(profile: Profile): Partial<Strategy> {
  const labelName = (object: ApiObject): void => {
    object.metadata.labels = { ...(object.metadata.labels ?? {}), [profile.namespaceNameLabel]: object.metadata.name ?? "" };
  };
  return {
    prepareForCreate(object) {
      labelName(object);
      const spec = specOf(object);
      const finalizers = finalizersOf(object);
      spec["finalizers"] = finalizers.includes(profile.namespaceFinalizer) ? finalizers : [...finalizers, profile.namespaceFinalizer];
      object["status"] = { phase: "Active" };
    },
    prepareForUpdate(object, old) {
      labelName(object);
      // spec.finalizers changes only through the finalize sub-resource.
      const oldSpec = old["spec"];
      if (isPlainObject(oldSpec)) specOf(object)["finalizers"] = oldSpec["finalizers"];
    },
    prepareForDelete(object) {
      // kube's namespace storage marks the deletion itself: a deletion time and the Terminating
      // phase, without the grace period generic storage gives other objects held by finalizers.
      delete object.metadata.deletionGracePeriodSeconds;
      const status = isPlainObject(object["status"]) ? object["status"] : {};
      object["status"] = { ...status, phase: "Terminating" };
    },
    hasOwnFinalizers(object) {
      return finalizersOf(object).length > 0;
    },
    updateSubresource(subresource, desired, old) {
      if (subresource !== "finalize") return old;
      specOf(old)["finalizers"] = finalizersOf(desired);
      return old;
    },
    validate(object) {
      // kube's ValidateNamespace: each finalizer a qualified name, a plain name only a standard
      // one; reported at `spec.finalizers` without the index, as kube does on create and update.
      const errors: FieldError[] = [];
      const standard = new Set([profile.namespaceFinalizer, "orphan", "foregroundDeletion"]);
      for (const finalizer of finalizersOf(object)) {
        const name = typeof finalizer === "string" ? finalizer : "";
        for (const message of validateQualifiedName(name)) errors.push(invalidValue("spec.finalizers", name, message));
        if (!name.includes("/") && !standard.has(name))
          errors.push(invalidValue("spec.finalizers", name, "name is neither a standard finalizer name nor is it fully qualified"));
      }
      return errors;
    },
  };
}
