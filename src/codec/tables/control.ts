import type { ApiObject } from "../../api/object.js";
import { humanDuration } from "../../util/human-duration.js";
import { integer, text, wide, AGE, NAME, type ColumnSpec, type KindTables } from "./column.js";
import { list, num, present, record, records, str } from "./format.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);

/** Subjects of one kind, comma-separated; service accounts as namespace/name. */
function subjects(binding: ApiObject, kind: string): string {
  return records(binding["subjects"])
    .filter((subject) => subject["kind"] === kind)
    .map((subject) => (kind === "ServiceAccount" ? `${str(subject["namespace"])}/${str(subject["name"])}` : str(subject["name"])))
    .join(", ");
}

const BINDING_COLUMNS: readonly ColumnSpec[] = [
  NAME,
  text("Role", "The bound role as kind/name.", (object) => `${str(record(object["roleRef"])["kind"])}/${str(record(object["roleRef"])["name"])}`),
  AGE,
  wide(text("Users", "Users bound.", (object) => subjects(object, "User"))),
  wide(text("Groups", "Groups bound.", (object) => subjects(object, "Group"))),
  wide(text("ServiceAccounts", "Service accounts bound, as namespace/name.", (object) => subjects(object, "ServiceAccount"))),
];

export const RBAC_TABLES: KindTables = { RoleBinding: BINDING_COLUMNS, ClusterRoleBinding: BINDING_COLUMNS };

/** Denied, else Approved, else Pending; then `,Failed` and `,Issued` when they apply. */
function csrCondition(csr: ApiObject): string {
  const status = record(csr["status"]);
  const types = new Set(records(status["conditions"]).map((condition) => condition["type"]));
  let text = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) text += ",Failed";
  if (str(status["certificate"]) !== "") text += ",Issued";
  return text;
}

export const CERTIFICATES_TABLES: KindTables = {
  CertificateSigningRequest: [
    NAME,
    AGE,
    text("SignerName", "The signer asked to sign.", (object) => str(spec(object)["signerName"]) || "<none>"),
    text("Requestor", "The user who asked.", (object) => str(spec(object)["username"])),
    text("RequestedDuration", "The validity asked for.", (object) =>
      typeof spec(object)["expirationSeconds"] === "number" ? humanDuration(num(spec(object)["expirationSeconds"]) * 1000) : "<none>",
    ),
    text("Condition", "Approval state, failure and issuance.", csrCondition),
  ],
};

const WEBHOOK_COLUMNS: readonly ColumnSpec[] = [
  NAME,
  integer("Webhooks", "Number of webhooks in the configuration.", (object) => list(object["webhooks"]).length),
  AGE,
];

/** `apiVersion/kind` of a policy's parameters, `<unset>` without. */
function paramKind(policy: ApiObject): string {
  const kind = record(spec(policy)["paramKind"]);
  return str(kind["kind"]) === "" ? "<unset>" : `${str(kind["apiVersion"])}/${str(kind["kind"])}`;
}

/** `namespace/name` of a binding's parameter (`*` for any namespace), `<unset>` without. */
function paramRef(binding: ApiObject): string {
  if (!present(spec(binding)["paramRef"])) return "<unset>";
  const ref = record(spec(binding)["paramRef"]);
  return `${str(ref["namespace"]) || "*"}/${str(ref["name"]) || "*"}`;
}

export const ADMISSION_TABLES: KindTables = {
  MutatingWebhookConfiguration: WEBHOOK_COLUMNS,
  ValidatingWebhookConfiguration: WEBHOOK_COLUMNS,
  ValidatingAdmissionPolicy: [
    NAME,
    integer("Validations", "Number of validations.", (object) => list(spec(object)["validations"]).length),
    text("ParamKind", "The kind of the parameters, as apiVersion/kind.", paramKind),
    AGE,
  ],
  ValidatingAdmissionPolicyBinding: [
    NAME,
    text("PolicyName", "The bound policy.", (object) => str(spec(object)["policyName"])),
    text("ParamRef", "The parameter resource, as namespace/name.", paramRef),
    AGE,
  ],
};

/**
 * A Limited level's shares, and its queuing numbers when it queues; `<none>` for what the level
 * does not have (an Exempt level has neither).
 */
function limitedValue(level: ApiObject, field: "nominalConcurrencyShares" | "queues" | "handSize" | "queueLengthLimit"): number | string {
  const limited = present(spec(level)["limited"]);
  if (limited === undefined) return "<none>";
  if (field === "nominalConcurrencyShares") return num(limited[field]);
  const queuing = present(record(limited["limitResponse"])["queuing"]);
  return queuing === undefined ? "<none>" : num(queuing[field]);
}

export const FLOWCONTROL_TABLES: KindTables = {
  FlowSchema: [
    NAME,
    text("PriorityLevel", "The priority level its requests go to.", (object) => str(record(spec(object)["priorityLevelConfiguration"])["name"])),
    text("MatchingPrecedence", "Lower matches first.", (object) => num(spec(object)["matchingPrecedence"])),
    text("DistinguisherMethod", "How requests are split into flows.", (object) => str(record(spec(object)["distinguisherMethod"])["type"]) || "<none>"),
    AGE,
    text(
      "MissingPL",
      "Whether the priority level is missing (`?` before it was checked).",
      (object) => str(records(record(object["status"])["conditions"]).find((condition) => condition["type"] === "Dangling")?.["status"]) || "?",
    ),
  ],
  PriorityLevelConfiguration: [
    NAME,
    text("Type", "Exempt or Limited.", (object) => str(spec(object)["type"])),
    text("NominalConcurrencyShares", "The level's share of the server's concurrency.", (object) => limitedValue(object, "nominalConcurrencyShares")),
    text("Queues", "Number of queues.", (object) => limitedValue(object, "queues")),
    text("HandSize", "Queues each flow is dealt.", (object) => limitedValue(object, "handSize")),
    text("QueueLengthLimit", "Requests each queue may hold.", (object) => limitedValue(object, "queueLengthLimit")),
    AGE,
  ],
};

/** `True`, or the status with its reason (`False (MissingEndpoints)`); `Unknown` before any check. */
function apiServiceAvailable(apiService: ApiObject): string {
  const condition = records(record(apiService["status"])["conditions"]).find((entry) => entry["type"] === "Available");
  if (condition === undefined) return "Unknown";
  const status = str(condition["status"]);
  const reason = str(condition["reason"]);
  return status === "True" || reason === "" ? status : `${status} (${reason})`;
}

export const APIREGISTRATION_TABLES: KindTables = {
  APIService: [
    NAME,
    text("Service", "The reference to the service that hosts this API endpoint.", (object) => {
      const service = present(spec(object)["service"]);
      return service === undefined ? "Local" : `${str(service["namespace"])}/${str(service["name"])}`;
    }),
    text("Available", "Whether this service is available.", apiServiceAvailable),
    AGE,
  ],
};
