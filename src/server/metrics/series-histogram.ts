import { Histogram, type HistogramConfiguration } from "prom-client";

/** One label set's recorder: `observe` is a bucket search and three additions. */
export interface SeriesRecorder {
  /** Records `value` once, or `times` times (one event sent to that many watchers). */
  observe(value: number, times?: number): void;
}

interface Recorded {
  readonly labels: Readonly<Record<string, string>>;
  /** Per bucket (not cumulative), the last one for values above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** One exported sample in prom-client's own shape (its registry renders `labels`, then default labels, then `sharedLabels`). */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/**
 * A prom-client Histogram written through `series(labels)` handles, for metrics observed many
 * times per request (admission observes every plugin of every write): prom-client's own
 * `observe` checks and hashes the label set on each call, which costs more than most plugins it
 * times. Scrapes (text and JSON) read the handles in prom-client's own output form, so the
 * registry, its content types and default labels work unchanged. Record only through `series`:
 * the inherited `observe`/`labels` are not read.
 */
export class SeriesHistogram<T extends string> extends Histogram<T> {
  private readonly bounds: readonly number[];
  private readonly recorded = new Map<string, Recorded>();
  private readonly exportName: string;
  private readonly exportHelp: string;

  constructor(configuration: HistogramConfiguration<T> & { readonly buckets: number[] }) {
    super(configuration);
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
    this.exportName = configuration.name;
    this.exportHelp = configuration.help;
  }

  /** The recorder of one label set (made on first ask; keep it). */
  series(labels: Readonly<Record<T, string>>): SeriesRecorder {
    const id = JSON.stringify(labels);
    let found = this.recorded.get(id);
    if (found === undefined) {
      found = { labels: { ...labels }, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.recorded.set(id, found);
    }
    const series = found;
    const bounds = this.bounds;
    return {
      observe(value, times = 1) {
        let bucket = 0;
        while (bucket < bounds.length && value > (bounds[bucket] ?? Number.POSITIVE_INFINITY)) bucket++;
        series.counts[bucket] = (series.counts[bucket] ?? 0) + times;
        series.sum += value * times;
        series.count += times;
      },
    };
  }

  /**
   * What prom-client's registry renders as text: buckets (cumulative, `le`), `+Inf`, sum and count
   * per series. prom-client's own `get()` (the JSON form) reads this too and merges the labels.
   */
  async getForPromString(): Promise<{ name: string; help: string; type: "histogram"; values: ExportedValue[]; aggregator: "sum" }> {
    const name = this.exportName;
    const values: ExportedValue[] = [];
    const sample = (
      labels: Record<string, string | number>,
      sharedLabels: Readonly<Record<string, string>>,
      value: number,
      metricName: string,
      exemplar: null | undefined,
    ) => values.push({ labels, sharedLabels, value, metricName, exemplar });
    for (const series of this.recorded.values()) {
      // As prom-client: a series shows from its first observation (again after a reset).
      if (series.count === 0) continue;
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.counts[index] ?? 0;
        sample({ le: bound }, series.labels, cumulative, `${name}_bucket`, null);
      });
      sample({ le: "+Inf" }, series.labels, series.count, `${name}_bucket`, null);
      sample({}, series.labels, series.sum, `${name}_sum`, undefined);
      sample({}, series.labels, series.count, `${name}_count`, undefined);
    }
    return { name, help: this.exportHelp, type: "histogram", values, aggregator: "sum" };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor resets too, before this class's fields exist.
    const recorded: Map<string, Recorded> | undefined = this.recorded;
    for (const series of recorded?.values() ?? []) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
