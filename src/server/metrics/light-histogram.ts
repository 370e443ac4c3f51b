import { Histogram, type LabelValues, type Registry } from "prom-client";

/** One series of a LightHistogram: observing is a bucket search and three additions. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface SeriesState extends HistogramSeries {
  readonly labels: Record<string, string>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A prom-client Histogram whose series are plain counters, for paths run on every request: a
 * prom-client child hashes its label object on each `observe`, a measurable share of an
 * in-process GET. Series are made once (`series`), kept, and rendered by `get()` in the format
 * prom-client's registry prints (cumulative `_bucket` with `le`, `_sum`, `_count`). The inherited
 * label-object methods are not used: `series` is the way in.
 */
export class LightHistogram<T extends string> extends Histogram<T> {
  private readonly bounds: readonly number[];
  private readonly all: SeriesState[] = [];
  private readonly metricName: string;
  private readonly metricHelp: string;

  constructor(options: { name: string; help: string; labelNames: readonly T[]; buckets: readonly number[]; registers: Registry[] }) {
    super({ name: options.name, help: options.help, labelNames: options.labelNames, buckets: [...options.buckets], registers: options.registers });
    this.bounds = [...options.buckets].sort((left, right) => left - right);
    this.metricName = options.name;
    this.metricHelp = options.help;
  }

  /** A new series with these label values (callers keep it; asking twice makes two). */
  series(labels: Record<T, string>): HistogramSeries {
    const bounds = this.bounds;
    const state: SeriesState = {
      labels: { ...labels },
      counts: new Float64Array(bounds.length),
      sum: 0,
      count: 0,
      observe(value: number) {
        state.sum += value;
        state.count++;
        for (let index = 0; index < bounds.length; index++) {
          if (value <= (bounds[index] ?? 0)) {
            state.counts[index] = (state.counts[index] ?? 0) + 1;
            return;
          }
        }
      },
    };
    this.all.push(state);
    return state;
  }

  /** What prom-client's registry prints (its `get` calls this too); not in prom-client's type declarations. */
  async getForPromString() {
    const values: { value: number; labels: LabelValues<T>; metricName: string }[] = [];
    for (const state of this.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += state.counts[index] ?? 0;
        values.push({ value: cumulative, labels: { le: bound, ...state.labels } as LabelValues<T>, metricName: `${this.metricName}_bucket` });
      });
      values.push({ value: state.count, labels: { le: "+Inf", ...state.labels } as LabelValues<T>, metricName: `${this.metricName}_bucket` });
      values.push({ value: state.sum, labels: state.labels as LabelValues<T>, metricName: `${this.metricName}_sum` });
      values.push({ value: state.count, labels: state.labels as LabelValues<T>, metricName: `${this.metricName}_count` });
    }
    return { name: this.metricName, help: this.metricHelp, type: "histogram", values, aggregator: "sum" };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset before this class's fields exist.
    const all: SeriesState[] | undefined = this.all;
    if (all === undefined) return;
    for (const state of all) {
      state.counts.fill(0);
      state.sum = 0;
      state.count = 0;
    }
  }
}
