import type { ControllerName } from "./runtime/selection.js";

/**
 * The controllers `--controllers` can name: kube-controller-manager's names, with the 1.28+
 * `…-controller` spellings as aliases. All are on by default.
 */
export const CONTROLLER_NAMES: readonly ControllerName[] = [
  { name: "garbagecollector", aliases: ["garbage-collector-controller"], enabledByDefault: true },
  { name: "namespace", aliases: ["namespace-controller"], enabledByDefault: true },
  { name: "resourcequota", aliases: ["resourcequota-controller"], enabledByDefault: true },
  { name: "clusterrole-aggregation", aliases: ["clusterrole-aggregation-controller"], enabledByDefault: true },
  { name: "serviceaccount", aliases: ["serviceaccount-controller"], enabledByDefault: true },
  { name: "serviceaccount-token", aliases: ["serviceaccount-token-controller"], enabledByDefault: true },
  { name: "root-ca-cert-publisher", aliases: ["root-ca-certificate-publisher-controller"], enabledByDefault: true },
];
