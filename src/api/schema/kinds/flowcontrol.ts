import { atomic, bool, enumOf, int32, listMap, obj, req, set, str, time, withDefault, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * flowcontrol.apiserver.<apiDomain> v1 (storage) and v1beta3 (served from it, as kube 1.30 does):
 * FlowSchema and PriorityLevelConfiguration, with kube's defaults (matchingPrecedence 1000;
 * Limited levels 30 shares, lendablePercent 0, queuing 64 queues, hand 8, length 50).
 */

const conditions = (): SchemaNode =>
  listMap(obj({ lastTransitionTime: time(), message: str(), reason: str(), status: str(), type: str() }), ["type"], { patch: true });
const named = (): SchemaNode => obj({ name: req(str()) });

function flowSchema(): SchemaNode {
  return resource("FlowSchema classifies requests into flows and assigns them a priority level.", {
    spec: obj({
      distinguisherMethod: obj({ type: req(enumOf(["ByNamespace", "ByUser"])) }),
      matchingPrecedence: withDefault(int32(), 1000),
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
  });
}

function priorityLevel(): SchemaNode {
  return resource("PriorityLevelConfiguration configures a priority level.", {
    spec: obj({
      exempt: obj({ lendablePercent: int32(), nominalConcurrencyShares: int32() }),
      limited: obj({
        borrowingLimitPercent: int32(),
        lendablePercent: withDefault(int32(), 0),
        limitResponse: obj({
          queuing: obj({ handSize: withDefault(int32(), 8), queueLengthLimit: withDefault(int32(), 50), queues: withDefault(int32(), 64) }),
          type: req(enumOf(["Queue", "Reject"])),
        }),
        nominalConcurrencyShares: withDefault(int32(), 30),
      }),
      type: req(enumOf(["Exempt", "Limited"])),
    }),
    status: obj({ conditions: conditions() }),
  });
}

export const FLOWCONTROL_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "flowcontrol.v1.FlowSchema": flowSchema(),
  "flowcontrol.v1.PriorityLevelConfiguration": priorityLevel(),
  "flowcontrol.v1beta3.FlowSchema": flowSchema(),
  "flowcontrol.v1beta3.PriorityLevelConfiguration": priorityLevel(),
};

export const FLOWCONTROL_KINDS: readonly KindDeclaration[] = kindsOf(
  "flowcontrol.apiserver",
  { domain: true, package: "flowcontrol" },
  { v1: ["FlowSchema", "PriorityLevelConfiguration"], v1beta3: ["FlowSchema", "PriorityLevelConfiguration"] },
);
