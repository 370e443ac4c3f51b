import { unauthorized } from "../../api/errors.js";
import { ANONYMOUS_USER, withAuthenticatedGroup, type Authenticator } from "../../auth/authenticator.js";
import { claimsBearer } from "../../auth/bearer-token.js";
import type { Filter } from "../../request/context.js";

/** Sets `context.user`; invalid credentials are 401, no credentials make the anonymous user. */
export function authenticateFilter(authenticator: Authenticator, options: { readonly anonymous: boolean }): Filter {
  return (next) => async (context) => {
    const result = await authenticator.authenticate(context.request);
    switch (result.kind) {
      case "ok":
        context.user = withAuthenticatedGroup(result.user);
        break;
      case "rejected":
        throw unauthorized();
      case "none":
        // A credential nobody accepts is invalid, not absent: 401 rather than anonymous.
        if (!options.anonymous || claimsBearer(context.request)) throw unauthorized();
        context.user = ANONYMOUS_USER;
        break;
    }
    return next(context);
  };
}
