import { ApiError } from "../../api/errors.js";
import { parseFieldSelector, parseLabelSelector, SelectorParseError, type FieldRequirement, type LabelRequirement } from "../../api/selector.js";

function parseSelector<T>(parse: (text: string) => T, text: string | null, name: string): T {
  try {
    return parse(text ?? "");
  } catch (error) {
    if (error instanceof SelectorParseError)
      // The parser's message is kube's whole text (`unable to parse requirement: …` only where kube says it).
      throw new ApiError(400, "BadRequest", error.message, {
        details: { causes: [{ reason: "FieldValueInvalid", message: error.message, field: name }] },
      });
    throw error;
  }
}

/** `labelSelector` (absent or empty: everything); a selector that does not parse is 400 naming it. */
export function queryLabelSelector(query: URLSearchParams): readonly LabelRequirement[] {
  return parseSelector(parseLabelSelector, query.get("labelSelector"), "labelSelector");
}

/** `fieldSelector` (absent or empty: everything); a selector that does not parse is 400 naming it. */
export function queryFieldSelector(query: URLSearchParams): readonly FieldRequirement[] {
  return parseSelector(parseFieldSelector, query.get("fieldSelector"), "fieldSelector");
}
