import type { ApiObject } from "../../api/object.js";
import { boolean, integer, text, AGE, NAME, type KindTables } from "./column.js";
import { num, quantity, record, str } from "./format.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);

/** An int-or-string bound as written, `N/A` when unset. */
const bound = (value: unknown): string => quantity(value) || "N/A";

export const POLICY_TABLES: KindTables = {
  PodDisruptionBudget: [
    NAME,
    text("Min Available", "Pods that must stay available.", (object) => bound(spec(object)["minAvailable"])),
    text("Max Unavailable", "Pods that may be unavailable.", (object) => bound(spec(object)["maxUnavailable"])),
    integer("Allowed Disruptions", "Pods that may be disrupted now.", (object) => num(record(object["status"])["disruptionsAllowed"])),
    AGE,
  ],
};

export const SCHEDULING_TABLES: KindTables = {
  PriorityClass: [
    NAME,
    integer("Value", "The priority pods of this class get.", (object) => num(object["value"])),
    boolean("Global-Default", "Whether pods without a class get this one.", (object) => object["globalDefault"] === true),
    AGE,
  ],
};

export const NODE_TABLES: KindTables = {
  RuntimeClass: [NAME, text("Handler", "The container runtime configuration that runs the pods.", (object) => str(object["handler"])), AGE],
};

export const COORDINATION_TABLES: KindTables = {
  Lease: [NAME, text("Holder", "Who holds the lease.", (object) => str(spec(object)["holderIdentity"])), AGE],
};
