import type { ApiObject } from "../../api/object.js";
import { integer, text, AGE, NAME, type CellContext, type ColumnSpec, type KindTables } from "./column.js";
import { num, present, quantity, record, records, str } from "./format.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);
const status = (object: ApiObject): Record<string, unknown> => record(object["status"]);

function parsedList(text: string | undefined): Record<string, unknown>[] {
  if (text === undefined) return [];
  try {
    return records(JSON.parse(text) as unknown);
  } catch {
    return [];
  }
}

/**
 * The autoscaling/v2 metrics and current values of an HPA in either served shape. autoscaling/v1
 * keeps a CPU target in its own fields and every other metric in annotations (as our v1 ↔ v2
 * conversion writes them), so a v1 object shows the targets its v2 form shows.
 */
function metricsOf(hpa: ApiObject, context: CellContext): { specs: Record<string, unknown>[]; statuses: Record<string, unknown>[] } {
  if (!hpa.apiVersion?.endsWith("/v1")) return { specs: records(spec(hpa)["metrics"]), statuses: records(status(hpa)["currentMetrics"]) };
  const annotations = hpa.metadata.annotations ?? {};
  const prefix = `autoscaling.alpha.${context.keyDomain}`;
  const target = spec(hpa)["targetCPUUtilizationPercentage"];
  const current = status(hpa)["currentCPUUtilizationPercentage"];
  const cpuSpec =
    typeof target === "number" ? [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } } }] : [];
  const cpuStatus = typeof current === "number" ? [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: current } } }] : [];
  return {
    specs: [...cpuSpec, ...parsedList(annotations[`${prefix}/metrics`])],
    statuses: [...cpuStatus, ...parsedList(annotations[`${prefix}/current-metrics`])],
  };
}

/** `current/target` of one metric, `<unknown>` for a current value not yet observed. */
function formatMetric(metric: Record<string, unknown>, observed: Record<string, unknown> | undefined): string {
  const type = str(metric["type"]);
  // Each metric type keeps its source under the type's name in lower camel case (`containerResource`).
  const key = type.charAt(0).toLowerCase() + type.slice(1);
  const source = record(metric[key]);
  const targetValues = record(source["target"]);
  const observedSource = present(observed?.[key]);
  const current = observedSource === undefined ? undefined : record(observedSource["current"]);
  const currentOf = (field: string): string => {
    const value = current?.[field];
    return value === undefined || value === null ? "<unknown>" : quantity(value);
  };
  switch (type) {
    case "External":
    case "Object":
      return targetValues["averageValue"] !== undefined
        ? `${currentOf("averageValue")}/${quantity(targetValues["averageValue"])} (avg)`
        : `${currentOf("value")}/${quantity(targetValues["value"])}`;
    case "Pods":
      return `${currentOf("averageValue")}/${quantity(targetValues["averageValue"])}`;
    case "Resource":
    case "ContainerResource": {
      const name = str(source["name"]);
      if (targetValues["averageValue"] !== undefined) return `${name}: ${currentOf("averageValue")}/${quantity(targetValues["averageValue"])}`;
      const utilization = current?.["averageUtilization"];
      const shown = typeof utilization === "number" ? `${utilization}%` : "<unknown>";
      const target = typeof targetValues["averageUtilization"] === "number" ? `${targetValues["averageUtilization"]}%` : "<auto>";
      return `${name}: ${shown}/${target}`;
    }
    default:
      return "<unknown type>";
  }
}

/** Up to two metrics (each paired with the current metric at the same index), then ` + N more...`. */
function targetsCell(hpa: ApiObject, context: CellContext): string {
  const { specs, statuses } = metricsOf(hpa, context);
  if (specs.length === 0) return "<none>";
  const shown = specs.slice(0, 2).map((metric, index) => formatMetric(metric, statuses[index]));
  return specs.length > 2 ? `${shown.join(", ")} + ${specs.length - 2} more...` : shown.join(", ");
}

const HPA_COLUMNS: readonly ColumnSpec[] = [
  NAME,
  text(
    "Reference",
    "The scaled object as kind/name.",
    (object) => `${str(record(spec(object)["scaleTargetRef"])["kind"])}/${str(record(spec(object)["scaleTargetRef"])["name"])}`,
  ),
  text("Targets", "Current and target values of the metrics.", targetsCell),
  text("MinPods", "The fewest replicas to scale to.", (object) =>
    typeof spec(object)["minReplicas"] === "number" ? String(spec(object)["minReplicas"]) : "<unset>",
  ),
  text("MaxPods", "The most replicas to scale to.", (object) => num(spec(object)["maxReplicas"])),
  text("Replicas", "Replicas now.", (object) => num(status(object)["currentReplicas"])),
  AGE,
];

export const AUTOSCALING_TABLES: KindTables = {
  HorizontalPodAutoscaler: HPA_COLUMNS,
  // The scale sub-resource's kind; its name column carries no `name` format, as in kube.
  Scale: [
    { name: "Name", type: "string", description: "The scaled object's name.", cell: (object) => object.metadata.name ?? "" },
    integer("Desired", "Replicas wanted.", (object) => num(spec(object)["replicas"])),
    integer("Available", "Replicas observed.", (object) => num(status(object)["replicas"])),
    AGE,
  ],
};
