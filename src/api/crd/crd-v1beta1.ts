import { isPlainObject } from "../object.js";

/**
 * A CustomResourceDefinition in `apiextensions.<domain>/v1beta1` (the version kube-apiserver
 * stores CRDs in, as JSON) as the `v1` object the server stores and serves. The differences,
 * following kube's conversion: per-version fields v1beta1 may hoist to the spec (`validation`,
 * `subresources`, `additionalPrinterColumns`, the single `version`) go back to every version
 * that has none of its own; printer columns' `JSONPath` becomes `jsonPath`; the webhook conversion
 * settings move under `conversion.webhook`; an explicit `preserveUnknownFields: false` (v1's
 * default) is dropped. The input is not changed.
 */
export function crdFromV1beta1(object: Readonly<Record<string, unknown>>, v1ApiVersion: string): Record<string, unknown> {
  const spec = isPlainObject(object["spec"]) ? { ...object["spec"] } : {};
  const { validation, subresources, additionalPrinterColumns, version, conversion, preserveUnknownFields, ...rest } = spec;
  const listed = Array.isArray(spec["versions"]) ? spec["versions"].filter(isPlainObject) : [];
  const versions = listed.length > 0 ? listed : typeof version === "string" ? [{ name: version, served: true, storage: true }] : [];
  const columns = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map((column) => {
          if (!isPlainObject(column)) return column;
          const { JSONPath, ...others } = column;
          return JSONPath === undefined ? others : { ...others, jsonPath: JSONPath };
        })
      : value;
  const v1: Record<string, unknown> = {
    ...rest,
    versions: versions.map((entry) => {
      const out: Record<string, unknown> = { ...entry };
      if (out["schema"] === undefined && validation !== undefined) out["schema"] = validation;
      if (out["subresources"] === undefined && subresources !== undefined) out["subresources"] = subresources;
      const ownColumns = out["additionalPrinterColumns"] ?? additionalPrinterColumns;
      if (ownColumns === undefined) delete out["additionalPrinterColumns"];
      else out["additionalPrinterColumns"] = columns(ownColumns);
      return out;
    }),
  };
  if (preserveUnknownFields === true) v1["preserveUnknownFields"] = true;
  if (isPlainObject(conversion)) {
    const { webhookClientConfig, conversionReviewVersions, ...strategy } = conversion;
    v1["conversion"] =
      webhookClientConfig === undefined && conversionReviewVersions === undefined
        ? strategy
        : {
            ...strategy,
            webhook: {
              ...(webhookClientConfig === undefined ? {} : { clientConfig: webhookClientConfig }),
              conversionReviewVersions: conversionReviewVersions ?? ["v1beta1"],
            },
          };
  }
  return { ...object, apiVersion: v1ApiVersion, spec: v1 };
}
