import type { ControllerName } from "./runtime/selection.js";

/**
 * The controllers `--controllers` can name: kube-controller-manager's names, with the 1.28+
 * `…-controller` spellings as aliases. On by default but for tokencleaner and bootstrapsigner, as in kube.
 */
export const CONTROLLER_NAMES: readonly ControllerName[] = [
  { name: "garbagecollector", aliases: ["garbage-collector-controller"], enabledByDefault: true },
  { name: "namespace", aliases: ["namespace-controller"], enabledByDefault: true },
  { name: "resourcequota", aliases: ["resourcequota-controller"], enabledByDefault: true },
  { name: "clusterrole-aggregation", aliases: ["clusterrole-aggregation-controller"], enabledByDefault: true },
  { name: "serviceaccount", aliases: ["serviceaccount-controller"], enabledByDefault: true },
  { name: "serviceaccount-token", aliases: ["serviceaccount-token-controller"], enabledByDefault: true },
  { name: "root-ca-cert-publisher", aliases: ["root-ca-certificate-publisher-controller"], enabledByDefault: true },
  { name: "csrsigning", aliases: ["certificatesigningrequest-signing-controller"], enabledByDefault: true },
  { name: "csrapproving", aliases: ["certificatesigningrequest-approving-controller"], enabledByDefault: true },
  { name: "csrcleaner", aliases: ["certificatesigningrequest-cleaner-controller"], enabledByDefault: true },
  { name: "tokencleaner", aliases: ["token-cleaner-controller"], enabledByDefault: false },
  { name: "bootstrapsigner", aliases: ["bootstrap-signer-controller"], enabledByDefault: false },
  { name: "endpoint", aliases: ["endpoints-controller"], enabledByDefault: true },
  { name: "endpointslice", aliases: ["endpointslice-controller"], enabledByDefault: true },
  { name: "endpointslicemirroring", aliases: ["endpointslice-mirroring-controller"], enabledByDefault: true },
];
