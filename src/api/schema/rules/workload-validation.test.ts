import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";
import { timeZoneError } from "./workloads.js";

type Json = Record<string, unknown>;

const TEMPLATE = { metadata: { labels: { app: "w" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };
const JOB_TEMPLATE = { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } };

function workload(kind: string, name: string, spec: Json = {}): Json {
  return { apiVersion: "apps/v1", kind, metadata: { name }, spec: { selector: { matchLabels: { app: "w" } }, template: TEMPLATE, ...spec } };
}

function job(name: string, spec: Json): Json {
  return { apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { template: JOB_TEMPLATE, ...spec } };
}

function cronJob(name: string, spec: Json = {}): Json {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name },
    spec: { schedule: "* * * * *", jobTemplate: { spec: { template: JOB_TEMPLATE } }, ...spec },
  };
}

describe("workload validation texts, as kube 1.30's apps, batch, autoscaling and policy validation", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  async function refused(path: string, body: Json): Promise<string> {
    const answer = await server.call("POST", path, { body });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.json["reason"], "Invalid");
    return String(answer.json["message"]);
  }

  async function created(path: string, body: Json): Promise<void> {
    const answer = await server.call("POST", path, { body });
    assert.equal(answer.status, 201, answer.text);
  }

  it("Deployment: maxUnavailable over 100%, progressDeadlineSeconds not above minReadySeconds (also the defaulted 600), a missing selector", async () => {
    const deployments = "/apis/apps/v1/namespaces/default/deployments";
    assert.equal(
      await refused(deployments, workload("Deployment", "pct", { strategy: { rollingUpdate: { maxSurge: "150%", maxUnavailable: "120%" } } })),
      'Deployment.apps "pct" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%',
    );
    assert.equal(
      await refused(deployments, workload("Deployment", "pds", { progressDeadlineSeconds: 5, minReadySeconds: 10 })),
      'Deployment.apps "pds" is invalid: spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds',
    );
    assert.match(
      await refused(deployments, workload("Deployment", "pds2", { minReadySeconds: 600 })),
      /spec\.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds/,
    );
    const noSelector = workload("Deployment", "nosel");
    delete (noSelector["spec"] as Json)["selector"];
    assert.equal(
      await refused(deployments, noSelector),
      'Deployment.apps "nosel" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"w"}: `selector` does not match template `labels`]',
    );
    await created(
      deployments,
      workload("Deployment", "fine", { minReadySeconds: 10, strategy: { rollingUpdate: { maxSurge: "150%", maxUnavailable: "100%" } } }),
    );
  });

  it("DaemonSet: maxUnavailable and maxSurge both 0", async () => {
    const daemonSets = "/apis/apps/v1/namespaces/default/daemonsets";
    assert.equal(
      await refused(
        daemonSets,
        workload("DaemonSet", "zero", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }),
      ),
      'DaemonSet.apps "zero" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
    );
    await created(daemonSets, workload("DaemonSet", "fine"));
  });

  it("Job: Indexed without completions, negative ttlSecondsAfterFinished and activeDeadlineSeconds, podFailurePolicy rules", async () => {
    const jobs = "/apis/batch/v1/namespaces/default/jobs";
    assert.equal(
      await refused(jobs, job("indexed", { completionMode: "Indexed", parallelism: 2 })),
      'Job.batch "indexed" is invalid: spec.completions: Required value: when completion mode is Indexed',
    );
    assert.match(
      await refused(jobs, job("ttl", { ttlSecondsAfterFinished: -1 })),
      /spec\.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0/,
    );
    assert.match(
      await refused(jobs, job("ads", { activeDeadlineSeconds: -1 })),
      /spec\.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0/,
    );
    assert.equal(
      await refused(jobs, job("none", { podFailurePolicy: { rules: [{ action: "FailJob" }] } })),
      'Job.batch "none" is invalid: spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
    );
    assert.equal(
      await refused(jobs, job("zero", { podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [0, 3, 2] } }] } })),
      'Job.batch "zero" is invalid: [spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator, spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 3, 2}: must be ordered]',
    );
    // A pod condition pattern's status defaults to True (kube's SetDefaults): a rule without one is stored with it.
    const ignoring = await server.call("POST", jobs, {
      body: job("no-status", { podFailurePolicy: { rules: [{ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] }] } }),
    });
    assert.equal(ignoring.status, 201, ignoring.text);
    assert.deepEqual(((ignoring.json["spec"] as Json)["podFailurePolicy"] as Json)["rules"], [
      { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
    ]);
    const both = { action: "Ignore", onExitCodes: { operator: "NotIn", values: [1] }, onPodConditions: [{ type: "DisruptionTarget", status: "True" }] };
    assert.match(
      await refused(jobs, job("both", { podFailurePolicy: { rules: [both] } })),
      /spec\.podFailurePolicy\.rules\[0\]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported/,
    );
    const onFailure = job("onfailure", { podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [1] } }] } });
    (onFailure["spec"] as Json)["template"] = { spec: { ...JOB_TEMPLATE.spec, restartPolicy: "OnFailure" } };
    assert.match(
      await refused(jobs, onFailure),
      /spec\.template\.spec\.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified/,
    );
    await created(
      jobs,
      job("fine", {
        completionMode: "Indexed",
        completions: 3,
        ttlSecondsAfterFinished: 0,
        podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [1, 3] } }] },
      }),
    );
  });

  it("CronJob: a name over 52 characters (on create), an unknown timeZone", async () => {
    const cronJobs = "/apis/batch/v1/namespaces/default/cronjobs";
    const long = `c${"a".repeat(52)}`;
    assert.equal(
      await refused(cronJobs, cronJob(long)),
      `CronJob.batch "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 52 characters`,
    );
    assert.equal(
      await refused(cronJobs, cronJob("tz", { timeZone: "Mars/Base" })),
      'CronJob.batch "tz" is invalid: spec.timeZone: Invalid value: "Mars/Base": unknown time zone Mars/Base',
    );
    await created(cronJobs, cronJob("a".repeat(52), { timeZone: "Europe/Berlin" }));
  });

  it("timeZone names as Go's LoadLocation takes them: case matters, Local is refused", () => {
    assert.equal(timeZoneError("America/New_York"), undefined);
    assert.equal(timeZoneError("UTC"), undefined);
    assert.equal(timeZoneError("america/new_york"), "unknown time zone america/new_york");
    assert.match(timeZoneError("Local") ?? "", /must be an explicit time zone/);
  });

  it("HPA: maxReplicas below minReplicas or 0, a metric without its source; PDB with minAvailable and maxUnavailable", async () => {
    const hpa = (name: string, spec: Json): Json => ({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "x" }, ...spec },
    });
    const hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    assert.equal(
      await refused(hpas, hpa("order", { minReplicas: 5, maxReplicas: 2, metrics: [{ type: "Resource" }] })),
      'HorizontalPodAutoscaler.autoscaling "order" is invalid: [spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`, spec.metrics[0].resource: Required value: must populate information for the given metric source]',
    );
    assert.match(await refused(hpas, hpa("zero", { maxReplicas: 0 })), /spec\.maxReplicas: Invalid value: 0: must be greater than 0/);
    await created(hpas, hpa("fine", { minReplicas: 2, maxReplicas: 2 }));
    const pdb = { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "both" }, spec: { minAvailable: 1, maxUnavailable: 1 } };
    assert.match(
      await refused("/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb),
      /^PodDisruptionBudget\.policy "both" is invalid: spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set$/,
    );
  });
});
