import type { ApiObject } from "../api/object.js";
import type { UserInfo } from "../request/context.js";
import type { ResourceDefinition } from "./definition.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What admission sees of a request: the operation, the objects, and who asks. */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly definition: ResourceDefinition;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  /** The new object (CREATE/UPDATE); mutators may change it in place. */
  readonly object: ApiObject | undefined;
  /** The stored object (UPDATE/DELETE). */
  readonly oldObject: ApiObject | undefined;
  readonly dryRun: boolean;
  /** Who asks; undefined for the server's own writes (controllers, start-up reconciliation). */
  readonly user: UserInfo | undefined;
}

/**
 * The admission hook the generic Store calls. `mutate` runs before validation and may change
 * `attributes.object`; `validate` runs on the final object, inside the update retry loop.
 * Either throws an ApiError to reject the whole request.
 */
export interface Admission {
  mutate(attributes: AdmissionAttributes): Promise<void>;
  validate(attributes: AdmissionAttributes): Promise<void>;
}

export const NO_ADMISSION: Admission = {
  mutate: async () => {},
  validate: async () => {},
};
