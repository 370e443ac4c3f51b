// Every installed kubectl runs the scripted sequence (test/helpers/kubectl-matrix.ts) under the
// orch profile: this file takes the newer half of the releases found beside gcloud.
import { ORCH_PROFILE } from "../src/api/profile.js";
import { describeKubectlMatrix, kubectlVersionGroup } from "./helpers/kubectl-matrix.js";

describeKubectlMatrix(ORCH_PROFILE, kubectlVersionGroup(1, 2));
