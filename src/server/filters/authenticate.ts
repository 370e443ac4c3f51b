import { unauthorized } from "../../api/errors.js";
import { ANONYMOUS_USER, withAuthenticatedGroup, type Authenticator } from "../../auth/authenticator.js";
import { bearerWithExtraSpace, EXTRA_SPACE_WARNING } from "../../auth/bearer-token.js";
import { addWarning, type Filter, type RequestContext } from "../../request/context.js";

/**
 * Sets `context.user`; invalid credentials are 401, no credentials make the anonymous user.
 * A bearer token nobody accepts is invalid (401); an `Authorization` header that holds no
 * bearer token at all (`Bearer` alone, another scheme) is no credential, as in kube.
 */
export function authenticateFilter(
  authenticator: Authenticator,
  options: {
    readonly anonymous: boolean;
    /** Called just before a 401 (the audit of failed authentications). */
    readonly onUnauthenticated?: (context: RequestContext) => void;
  },
): Filter {
  return (next) => async (context) => {
    const result = await authenticator.authenticate(context.request);
    switch (result.kind) {
      case "ok":
        context.user = withAuthenticatedGroup(result.user);
        break;
      case "rejected":
        options.onUnauthenticated?.(context);
        throw unauthorized();
      case "none":
        if (!options.anonymous) {
          options.onUnauthenticated?.(context);
          throw unauthorized();
        }
        if (bearerWithExtraSpace(context.request)) addWarning(context, EXTRA_SPACE_WARNING);
        context.user = ANONYMOUS_USER;
        break;
    }
    return next(context);
  };
}
