import { apiGroup } from "../../api/profile.js";
import type { ApiObject } from "../../api/object.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { recordOf } from "./pod-spec.js";

async function defaults(context: PluginContext, group: string, plural: string, annotations: readonly string[]): Promise<ApiObject[]> {
  const { items } = await context.client.list({ group, version: "v1", plural }, "");
  return items.filter((item) => annotations.some((annotation) => item.metadata.annotations?.[annotation] === "true"));
}

/**
 * DefaultStorageClass: a new claim that names no class (the field absent, not "", and no
 * `volume.beta.<keyDomain>/storage-class` annotation) gets the class
 * annotated `storageclass.<keyDomain>/is-default-class: "true"` (or its beta spelling); several
 * defaults refuse the claim (the spec's rule). Updates are not touched.
 */
export function defaultStorageClass(context: PluginContext): AdmissionPlugin {
  const domain = context.names.keyDomain;
  const annotations = [`storageclass.${domain}/is-default-class`, `storageclass.beta.${domain}/is-default-class`];
  return {
    name: "DefaultStorageClass",
    resources: new Set(["persistentvolumeclaims"]),
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      const claim = attributes.object;
      if (claim === undefined || attributes.resource.group !== "" || attributes.subresource !== "") return;
      const spec = recordOf(claim["spec"]);
      // kube reads the class from the beta annotation first: a claim naming one there is left alone too.
      if (spec["storageClassName"] !== undefined || claim.metadata.annotations?.[`volume.beta.${domain}/storage-class`] !== undefined) return;
      const found = await defaults(context, apiGroup(context.profile, "storage"), "storageclasses", annotations);
      if (found.length > 1) throw denied(attributes, `${found.length} default StorageClasses were found`);
      const only = found[0];
      if (only !== undefined) claim["spec"] = { ...spec, storageClassName: only.metadata.name ?? "" };
    },
  };
}

/**
 * DefaultIngressClass: a new Ingress without `ingressClassName` (nor the legacy class annotation)
 * gets the IngressClass annotated `ingressclass.<keyDomain>/is-default-class: "true"`; several
 * defaults refuse it.
 */
export function defaultIngressClass(context: PluginContext): AdmissionPlugin {
  const domain = context.names.keyDomain;
  const group = apiGroup(context.profile, "networking");
  return {
    name: "DefaultIngressClass",
    resources: new Set(["ingresses"]),
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      const ingress = attributes.object;
      if (ingress === undefined || attributes.resource.group !== group || attributes.subresource !== "") return;
      const spec = recordOf(ingress["spec"]);
      if (spec["ingressClassName"] !== undefined || ingress.metadata.annotations?.[`${domain}/ingress.class`] !== undefined) return;
      const found = await defaults(context, group, "ingressclasses", [`ingressclass.${domain}/is-default-class`]);
      if (found.length > 1) throw denied(attributes, `${found.length} default IngressClasses were found, only 1 allowed`);
      const only = found[0];
      if (only !== undefined) ingress["spec"] = { ...spec, ingressClassName: only.metadata.name ?? "" };
    },
  };
}
