import type { Tracer } from "@opentelemetry/api";
import type { Admission } from "../../admission/interface.js";
import type { Authenticator } from "../../auth/authenticator.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { inSpan } from "../../util/tracing.js";

/** The request stages as spans under the request's: each call of the wrapped stage is one span. */

export function tracedAuthenticator(authenticator: Authenticator, tracer: Tracer): Authenticator {
  return { name: authenticator.name, authenticate: (request) => inSpan(tracer, "authentication", () => authenticator.authenticate(request)) };
}

export function tracedAuthorizer(authorizer: Authorizer, tracer: Tracer): Authorizer {
  return {
    name: authorizer.name,
    authorize: (user, attributes) => inSpan(tracer, "authorization", () => authorizer.authorize(user, attributes), { "authorization.verb": attributes.verb }),
  };
}

export function tracedAdmission(admission: Admission, tracer: Tracer): Admission {
  return {
    // The span covers the whole step, whether the chain finished synchronously or not.
    mutate: (attributes) => inSpan(tracer, "admission.mutate", async () => admission.mutate(attributes), { "admission.operation": attributes.operation }),
    validate: (attributes) => inSpan(tracer, "admission.validate", async () => admission.validate(attributes), { "admission.operation": attributes.operation }),
  };
}
