import { ApiError, badRequest } from "../../../api/errors.js";
import { isPlainObject } from "../../../api/object.js";
import type { ResourceVerb } from "../../../request/request-info.js";
import type { ConnectHandler } from "../../definition.js";

/** What kube serves for its proxy sub-resources. */
const PROXY_VERBS: readonly ResourceVerb[] = ["create", "delete", "get", "patch", "update"];
const STREAM_VERBS: readonly ResourceVerb[] = ["create", "get"];

function noAgent(node: string): ApiError {
  return new ApiError(503, "ServiceUnavailable", `no node agent is connected for node "${node}": this server runs without kubelets`);
}

/**
 * A pod's streams (`log`, `exec`, `attach`, `portforward`, `proxy`): kube reaches the kubelet of
 * the pod's node. Here a pod without a node is 400 as kube answers, and one with a node is 503
 * naming the node, since no node agent connects to this server.
 */
function podStream(verbs: readonly ResourceVerb[]): ConnectHandler {
  return {
    verbs,
    async answer({ namespace, name, store }) {
      const pod = await store.get(namespace, name);
      const spec = isPlainObject(pod["spec"]) ? pod["spec"] : {};
      const node = typeof spec["nodeName"] === "string" ? spec["nodeName"] : "";
      if (node === "") throw badRequest(`pod ${name} does not have a host assigned`);
      throw noAgent(node);
    },
  };
}

export const POD_CONNECT: Readonly<Record<string, ConnectHandler>> = {
  log: podStream(["get"]),
  exec: podStream(STREAM_VERBS),
  attach: podStream(STREAM_VERBS),
  portforward: podStream(STREAM_VERBS),
  proxy: podStream(PROXY_VERBS),
};

export const NODE_CONNECT: Readonly<Record<string, ConnectHandler>> = {
  proxy: {
    verbs: PROXY_VERBS,
    async answer({ name, store }) {
      await store.get("", name);
      throw noAgent(name);
    },
  },
};

/** A service's proxy reaches one of its endpoints' pods, on nodes no agent connects from. */
export const SERVICE_CONNECT: Readonly<Record<string, ConnectHandler>> = {
  proxy: {
    verbs: PROXY_VERBS,
    async answer({ namespace, name, store }) {
      await store.get(namespace, name);
      throw new ApiError(503, "ServiceUnavailable", `no endpoints available for service "${name}"`);
    },
  },
};
