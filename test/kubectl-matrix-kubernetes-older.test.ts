// Every installed kubectl runs the scripted sequence (test/helpers/kubectl-matrix.ts) under the
// kubernetes profile: this file takes the older half of the releases found beside gcloud.
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { describeKubectlMatrix, kubectlVersionGroup } from "./helpers/kubectl-matrix.js";

describeKubectlMatrix(KUBERNETES_PROFILE, kubectlVersionGroup(0, 2));
