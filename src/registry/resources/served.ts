import type { Profile } from "../../api/profile.js";
import type { ResourceDefinition } from "../definition.js";
import { apiregistrationResources } from "./apiregistration/index.js";
import { appsResources } from "./apps/index.js";
import { withAuthenticationApis, type AuthenticationApis } from "./authentication/index.js";
import { accessReviewResources, AccessReviewerSlot, type AccessReviewer } from "./authorization/access-reviews.js";
import { catalogueResources } from "./catalogue.js";
import { coreResources } from "./core/index.js";
import { DEFAULT_SERVICE_NETWORK, type ServiceNetwork } from "./core/service-network.js";
import { rbacResources } from "./rbac/index.js";
import { withKindWarnings } from "./warnings/index.js";

export interface BuiltinResourceOptions {
  /** TokenReview and `serviceaccounts/{name}/token`; neither is served without it. */
  readonly authenticationApis?: AuthenticationApis;
  /** Answers the access reviews (an `AccessReviewerSlot` the composition root fills after authorization is built). */
  readonly accessReviewer: AccessReviewer;
  /** The ranges services' cluster IPs and node ports come from; default kube's defaults. */
  readonly serviceNetwork?: ServiceNetwork;
}

/** Every built-in resource at every version, before `--runtime-config` picks the enabled ones. */
export function builtinResources(profile: Profile, options: BuiltinResourceOptions): ResourceDefinition[] {
  const served = withKindWarnings(profile, [
    ...coreResources(profile, options.serviceNetwork ?? DEFAULT_SERVICE_NETWORK),
    ...apiregistrationResources(profile),
    ...appsResources(),
    ...catalogueResources(profile),
    ...rbacResources(profile),
    ...accessReviewResources(profile, options.accessReviewer),
  ]);
  return options.authenticationApis === undefined ? served : withAuthenticationApis(profile, served, options.authenticationApis);
}

/** Every built-in resource's storage group and plural (what kube's key layout reads keys back into). */
export function storedBuiltinResources(profile: Profile): { readonly group: string; readonly plural: string }[] {
  const seen = new Map<string, { readonly group: string; readonly plural: string }>();
  for (const definition of builtinResources(profile, { accessReviewer: new AccessReviewerSlot() })) {
    if (definition.virtual !== undefined) continue;
    const { group, plural } = definition.storedAs ?? definition;
    seen.set(`${group}/${plural}`, { group, plural });
  }
  return [...seen.values()];
}
