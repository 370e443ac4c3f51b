import { atomic, bool, enumOf, int32, listMap, obj, req, set, str, time, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** flowcontrol.apiserver.<apiDomain>/v1: FlowSchema and PriorityLevelConfiguration. */

const conditions = (): SchemaNode =>
  listMap(obj({ lastTransitionTime: time(), message: str(), reason: str(), status: str(), type: str() }), ["type"], { patch: true });
const named = (): SchemaNode => obj({ name: req(str()) });

export const FLOWCONTROL_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "flowcontrol.v1.FlowSchema": resource("FlowSchema classifies requests into flows and assigns them a priority level.", {
    spec: obj({
      distinguisherMethod: obj({ type: req(enumOf(["ByNamespace", "ByUser"])) }),
      matchingPrecedence: int32(),
      priorityLevelConfiguration: req(named()),
      rules: atomic(
        obj({
          nonResourceRules: atomic(obj({ nonResourceURLs: req(set(str())), verbs: req(set(str())) })),
          resourceRules: atomic(
            obj({ apiGroups: req(set(str())), clusterScope: bool(), namespaces: set(str()), resources: req(set(str())), verbs: req(set(str())) }),
          ),
          subjects: req(
            atomic(
              obj({
                group: named(),
                kind: req(enumOf(["Group", "ServiceAccount", "User"])),
                serviceAccount: obj({ name: req(str()), namespace: req(str()) }),
                user: named(),
              }),
            ),
          ),
        }),
      ),
    }),
    status: obj({ conditions: conditions() }),
  }),
  "flowcontrol.v1.PriorityLevelConfiguration": resource("PriorityLevelConfiguration configures a priority level.", {
    spec: obj({
      exempt: obj({ lendablePercent: int32(), nominalConcurrencyShares: int32() }),
      limited: obj({
        borrowingLimitPercent: int32(),
        lendablePercent: int32(),
        limitResponse: obj({ queuing: obj({ handSize: int32(), queueLengthLimit: int32(), queues: int32() }), type: req(enumOf(["Queue", "Reject"])) }),
        nominalConcurrencyShares: int32(),
      }),
      type: req(enumOf(["Exempt", "Limited"])),
    }),
    status: obj({ conditions: conditions() }),
  }),
};

export const FLOWCONTROL_KINDS: readonly KindDeclaration[] = kindsOf(
  "flowcontrol.apiserver",
  { domain: true, package: "flowcontrol" },
  { v1: ["FlowSchema", "PriorityLevelConfiguration"] },
);
