// Every installed kubectl runs the scripted sequence (test/helpers/kubectl-matrix.ts) under the
// orch profile. The releases found beside gcloud are split into four groups, oldest first, one
// per file, so the runner spreads them over its workers and no file nears the per-file timeout
// on a loaded machine; this file takes group 3.
import { ORCH_PROFILE } from "../src/api/profile.js";
import { describeKubectlMatrix, kubectlVersionGroup } from "./helpers/kubectl-matrix.js";

describeKubectlMatrix(ORCH_PROFILE, kubectlVersionGroup(2, 4));
