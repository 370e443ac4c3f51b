import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { isPod, listOf, specOf, stringOf } from "./pod-spec.js";

/**
 * DefaultTolerationSeconds: a new pod without a `NoExecute` toleration of the not-ready or the
 * unreachable node taint gets one (`Exists`, for `--default-not-ready-toleration-seconds` /
 * `--default-unreachable-toleration-seconds`, 300 each by default).
 */
export function defaultTolerationSeconds(context: PluginContext): AdmissionPlugin {
  const taints: readonly [string, number][] = [
    [`${context.names.nodeTaintPrefix}not-ready`, context.settings.notReadyTolerationSeconds],
    [`${context.names.nodeTaintPrefix}unreachable`, context.settings.unreachableTolerationSeconds],
  ];
  return {
    name: "DefaultTolerationSeconds",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE",
    mutate(attributes) {
      if (attributes.object === undefined || !isPod(attributes)) return;
      const spec = specOf(attributes.object);
      const tolerations = listOf(spec["tolerations"]);
      const added = [...tolerations];
      for (const [key, seconds] of taints) {
        const tolerated = tolerations.some((toleration) => {
          const effect = stringOf(toleration["effect"]);
          const tolerationKey = stringOf(toleration["key"]);
          return (effect === "" || effect === "NoExecute") && (tolerationKey === key || (tolerationKey === "" && toleration["operator"] === "Exists"));
        });
        if (!tolerated) added.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds });
      }
      if (added.length > tolerations.length) spec["tolerations"] = added;
    },
  };
}
