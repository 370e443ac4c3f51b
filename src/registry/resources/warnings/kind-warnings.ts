import type { ApiObject } from "../../../api/object.js";

/**
 * One kind's warning rules: kube's `WarningsOnCreate` and `WarningsOnUpdate` of its strategy.
 * Both read the object after validation and never change it.
 */
export interface KindWarnings {
  readonly onCreate?: (object: ApiObject) => string[];
  readonly onUpdate?: (object: ApiObject, old: ApiObject) => string[];
}
