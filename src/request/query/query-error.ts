import { ApiError } from "../../api/errors.js";

/**
 * A query parameter that does not parse: 400 BadRequest whose message carries kube's wording and
 * whose one cause names the parameter (`field`), so clients and tests can tell which one it was.
 */
export function queryParameterError(name: string, message: string): ApiError {
  return new ApiError(400, "BadRequest", message, { details: { causes: [{ reason: "FieldValueInvalid", message, field: name }] } });
}
