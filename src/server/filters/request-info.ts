import type { Filter } from "../../request/context.js";
import { parseRequestInfo } from "../../request/request-info.js";

export function requestInfoFilter(): Filter {
  return (next) => async (context) => {
    const { method, path, query } = context.request;
    context.info = parseRequestInfo(method, path, query);
    return next(context);
  };
}
