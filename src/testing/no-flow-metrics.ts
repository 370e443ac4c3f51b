import type { FlowControlMetrics } from "../server/flowcontrol/flowcontrol-metrics.js";

const NO_SERIES = { dispatched() {}, rejected() {}, inQueue() {}, executing() {}, seatsReleased() {}, estimated() {}, executed() {} };

/** Flow-control metrics that record nothing, for tests of the filter and the dispatcher. */
export const NO_FLOW_METRICS: FlowControlMetrics = {
  dispatched() {},
  rejected() {},
  inQueue() {},
  executing() {},
  seatsReleased() {},
  estimated() {},
  executed() {},
  limits() {},
  series: () => NO_SERIES,
};
