/**
 * Prometheus metrics in the text exposition format (version 0.0.4): counters and histograms
 * the server updates, and gauges read at scrape time. Labels never carry query text or data.
 */

type Labels = Record<string, string | number>;

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (!entries.length) return '';
  return `{${entries.map(([k, v]) => `${k}="${String(v).replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`).join(',')}}`;
}

/** A series' key in its metric: every caller of a metric names the same labels in the same order. */
function keyOf(labels: Labels): string {
  let key = '';
  for (const k in labels) key += `${labels[k]}\u0000`;
  return key;
}

class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = keyOf(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }

  get(labels: Labels = {}): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines;
  }
}

class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (value <= b) s!.counts[i]++;
    });
    s.sum += value;
    s.count++;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      lines.push(...this.buckets.map((b, i) => `${this.name}_bucket${labelText({ ...s.labels, le: b })} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines;
  }
}

interface Gauge {
  name: string;
  help: string;
  read(): number | { labels: Labels; value: number }[];
}

export class Metrics {
  readonly requests = new Counter('weave_http_requests_total', 'HTTP requests answered, by route and status.');
  readonly operations = new Counter(
    'weave_sparql_operations_total',
    'Jobs run by the query workers (query, update, graph-read, graph-write, describe, stats), by status.',
  );
  readonly durations = new Histogram(
    'weave_sparql_operation_duration_seconds',
    'Time from arrival to answer of each worker job, queueing included.',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
  readonly timeouts = new Counter(
    'weave_sparql_timeouts_total',
    'Jobs stopped at the timeout: while queued (503) or while running (504, worker replaced).',
  );
  readonly rejected = new Counter('weave_sparql_rejected_total', 'Jobs refused because the queue was full (503).');
  readonly restarts = new Counter('weave_worker_restarts_total', 'Query workers replaced, by reason.');
  private readonly gauges: Gauge[] = [];

  gauge(gauge: Gauge): void {
    this.gauges.push(gauge);
  }

  render(): string {
    const lines = [
      ...this.requests.render(),
      ...this.operations.render(),
      ...this.durations.render(),
      ...this.timeouts.render(),
      ...this.rejected.render(),
      ...this.restarts.render(),
    ];
    for (const g of this.gauges) {
      lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      const value = g.read();
      if (typeof value === 'number') lines.push(`${g.name} ${value}`);
      else for (const v of value) lines.push(`${g.name}${labelText(v.labels)} ${v.value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
