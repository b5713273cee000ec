import type { ScaleResults, ScaleRun } from './results.ts';
import { growthExponent } from './stats.ts';

/**
 * The scale bench's Markdown table: one row per figure, one column per K, and the growth
 * exponent of the figure across K (1: linear in the data; a step well above 1 grows faster than
 * the data). Wall times move with the machine's load; CPU times beside them move less.
 */

interface Row {
  label: string;
  /** The figure at one K, as shown, and the number its exponent is fitted on (none: no exponent). */
  cell(run: ScaleRun): { text: string; y?: number };
}

const MB = 1e6;
/** Transcript bytes ingest read (the copies' other files, sidecars and tool outputs, are not transcripts). */
const read = (r: ScaleRun) => r.ingest?.bytes ?? r.bytes;
const s = (ms: number | undefined) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}`);
const ms = (v: number | undefined) => (v === undefined ? '–' : v < 10 ? v.toFixed(1) : v.toFixed(0));
const n = (v: number | undefined) => (v === undefined ? '–' : Math.round(v).toLocaleString('en'));
const timed = (t: { wallMs: number; cpuMs: number } | undefined) => (t ? `${s(t.wallMs)} s (cpu ${s(t.cpuMs)})` : '–');

function rows(results: ScaleResults): Row[] {
  const queryNames = [...new Set(results.runs.flatMap((r) => r.queries.map((q) => q.name)))];
  const list: Row[] = [
    { label: 'transcripts read (MB)', cell: (r) => ({ text: (read(r) / MB).toFixed(1), y: read(r) }) },
    { label: 'ingest: wall s (cpu s)', cell: (r) => ({ text: timed(r.ingest), y: r.ingest?.cpuMs }) },
    { label: 'ingest MB/s (wall)', cell: (r) => ({ text: r.ingest ? (read(r) / MB / (r.ingest.wallMs / 1000)).toFixed(1) : '–' }) },
    { label: 'quads (session graphs)', cell: (r) => ({ text: n(r.ingest?.quads), y: r.ingest?.quads }) },
    {
      label: 'capacity notice after ingest',
      cell: (r) => ({
        text:
          r.ingest?.notice === undefined ? '–' : r.ingest.notice ? `yes: ${/\d+% of the ~[\d.]+ M/.exec(r.ingest.notice)?.[0]}` : 'none',
      }),
    },
    { label: 'quads per MB', cell: (r) => ({ text: r.ingest ? n(r.ingest.quads / (read(r) / MB)) : '–' }) },
    { label: 'readers: wall s (cpu s)', cell: (r) => ({ text: timed(r.readers), y: r.readers?.cpuMs }) },
    {
      label: 'readers ÷ ingest (cpu)',
      cell: (r) => ({ text: r.readers && r.ingest ? (r.readers.cpuMs / r.ingest.cpuMs).toFixed(2) : '–' }),
    },
    {
      label: 'peak RSS of weave ingest, readers included (MiB)',
      cell: (r) => ({ text: n(r.readers?.peakRssMiB), y: r.readers?.peakRssMiB }),
    },
    { label: 'open store: wall s (cpu s)', cell: (r) => ({ text: timed(r.open), y: r.open?.cpuMs }) },
    { label: "Oxigraph's chunked load: wall s (cpu s)", cell: (r) => ({ text: timed(r.raw), y: r.raw?.cpuMs }) },
    { label: 'open ÷ chunked load (cpu)', cell: (r) => ({ text: r.open && r.raw ? (r.open.cpuMs / r.raw.cpuMs).toFixed(2) : '–' }) },
    { label: 'quads in the open store', cell: (r) => ({ text: n(r.open?.quads), y: r.open?.quads }) },
    { label: 'WASM bytes per quad (open)', cell: (r) => ({ text: r.open ? n(r.open.wasmBytes / r.open.quads) : '–' }) },
    {
      label: 'WASM MiB (open / chunked load)',
      cell: (r) => ({
        text: r.open && r.raw ? `${n(r.open.wasmBytes / 2 ** 20)} / ${n(r.raw.wasmBytes / 2 ** 20)}` : '–',
        y: r.open?.wasmBytes,
      }),
    },
    {
      label: 'WASM MiB after the ready queries',
      cell: (r) => {
        const most = Math.max(...r.queries.map((q) => q.wasmBytes ?? 0));
        return most > 0 ? { text: n(most / 2 ** 20), y: most } : { text: '–' };
      },
    },
    ...queryNames.map(
      (name): Row => ({
        label: `query ${name}: p50 / p95 ms`,
        cell: (r) => {
          const q = r.queries.find((x) => x.name === name);
          if (!q) return { text: '–' };
          if (q.cutOffAfterMs !== undefined) return { text: `> ${s(q.cutOffAfterMs)} s (cut off)`, y: q.cutOffAfterMs };
          if (q.diedAfterMs !== undefined) return { text: `died after ${s(q.diedAfterMs)} s` };
          return { text: `${ms(q.p50)} / ${ms(q.p95)}`, y: q.p50 };
        },
      }),
    ),
    ...(['point', 'medium'] as const).flatMap((query): Row[] => [
      {
        label: `endpoint ${query} query, weave serve: req/s, p99 ms`,
        cell: (r) => {
          const e = r.endpoint.find((x) => x.query === query)?.weave;
          return e ? { text: `${e.rps.toFixed(0)}, ${e.p99}${e.failed ? ` (${e.failed} failed)` : ''}`, y: e.p99 } : { text: '–' };
        },
      },
      {
        label: `endpoint ${query} query, bare Fastify: req/s, p99 ms`,
        cell: (r) => {
          const e = r.endpoint.find((x) => x.query === query)?.bare;
          return e ? { text: `${e.rps.toFixed(0)}, ${e.p99}${e.failed ? ` (${e.failed} failed)` : ''}`, y: e.p99 } : { text: '–' };
        },
      },
    ]),
    ...[...new Set(results.runs.flatMap((r) => r.pages?.map((p) => p.page) ?? []))].map(
      (page): Row => ({
        label: `page ${page}: s (status)`,
        cell: (r) => {
          const p = r.pages?.find((x) => x.page === page);
          return p
            ? { text: `${s(p.ms)}${p.status === 200 ? '' : ` (${p.status})`}`, y: p.status === 200 ? p.ms : undefined }
            : { text: '–' };
        },
      }),
    ),
    {
      label: 'weave usage daily: wall s (cpu s)',
      cell: (r) => {
        const u = r.usage.weave;
        if (u?.status !== 'ok') return { text: u?.status ?? '–' };
        return { text: timed(u as { wallMs: number; cpuMs: number }), y: u.cpuMs };
      },
    },
    {
      label: 'ccusage daily --json: wall s (cpu s)',
      cell: (r) => {
        const u = r.usage.ccusage;
        if (u?.status !== 'ok') return { text: u?.status ?? '–' };
        return { text: timed(u as { wallMs: number; cpuMs: number }), y: u.cpuMs };
      },
    },
    { label: 'usage totals, weave: output tokens, USD', cell: (r) => ({ text: totals(r.usage.weave) }) },
    { label: 'usage totals, ccusage: output tokens, USD', cell: (r) => ({ text: totals(r.usage.ccusage) }) },
  ];
  return results.runs.some((r) => r.external) ? [...list, ...externalRows(results)] : list;
}

/** The external step's rows: weave into Virtuoso beside Virtuoso's own bulk load and answers. */
function externalRows(results: ScaleResults): Row[] {
  const names = [...new Set(results.runs.flatMap((r) => r.external?.queries.map((q) => q.name) ?? []))];
  const ingestOverLoad = (r: ScaleRun) => {
    const x = r.external;
    return x?.ingest && x.bulkLoad ? x.ingest.wallMs / x.bulkLoad.wallMs : undefined;
  };
  return [
    {
      label: 'Virtuoso: weave ingest --store, wall s (cpu s)',
      cell: (r) => ({ text: r.external?.ingest?.failed ? 'failed' : timed(r.external?.ingest), y: r.external?.ingest?.wallMs }),
    },
    { label: 'Virtuoso: quads weave ingest put in', cell: (r) => ({ text: n(r.external?.quads), y: r.external?.quads }) },
    {
      label: 'Virtuoso: weave export nquads --rdf 1.1, wall s (MB)',
      cell: (r) => ({
        text: r.external?.export ? `${s(r.external.export.wallMs)} s (${n(r.external.export.bytes / MB)})` : '–',
        y: r.external?.export?.wallMs,
      }),
    },
    {
      label: 'Virtuoso: its bulk loader of that file, wall s (quads)',
      cell: (r) => {
        const b = r.external?.bulkLoad;
        return { text: b ? `${s(b.wallMs)} s (${n(b.quads)})${b.failed ? ' failed' : ''}` : '–', y: b?.wallMs };
      },
    },
    {
      label: 'Virtuoso: weave ingest ÷ bulk loader (wall)',
      cell: (r) => ({ text: ingestOverLoad(r) === undefined ? '–' : ingestOverLoad(r)!.toFixed(1) }),
    },
    {
      label: 'Virtuoso: weave verify --store, wall s (lines, texts)',
      cell: (r) => {
        const v = r.external?.verify;
        if (!v) return { text: '–' };
        if (v.failed) return { text: `failed: ${v.failed.slice(0, 60)}` };
        return { text: `${s(v.wallMs)} s (${n(v.lines)}, ${n(v.texts)})${v.ok ? '' : ' FAILS'}`, y: v.wallMs };
      },
    },
    ...names.map(
      (name): Row => ({
        label: `Virtuoso query ${name}: weave query / bare fetch s (rows)`,
        cell: (r) => {
          const q = r.external?.queries.find((x) => x.name === name);
          if (!q) return { text: '–' };
          if (q.failed) return { text: `failed: ${q.failed.slice(0, 60)}` };
          const same = q.weaveRows === q.rows ? '' : `, weave ${n(q.weaveRows)}`;
          return { text: `${s(q.weaveMs)} / ${s(q.bareMs)} (${n(q.rows)}${same})`, y: q.bareMs };
        },
      }),
    ),
  ];
}

function totals(u: ScaleRun['usage']['weave']): string {
  if (!u) return '–';
  if (u.status !== 'ok' || !u.totals) return u.status;
  const cost = u.totals.totalCost ?? u.totals.costUSD;
  return `${n(u.totals.outputTokens)}, ${cost === undefined ? '–' : cost.toFixed(2)}`;
}

export function markdownTable(results: ScaleResults): string {
  const ks = results.runs.map((r) => r.k);
  const header = `| figure | ${ks.map((k) => `K = ${k}`).join(' | ')} | growth exponent |`;
  const rule = `|---|${ks.map(() => '---:').join('|')}|---:|`;
  // A figure no K measured (the embedded steps skipped by --external-only) has no row.
  const body = rows(results).flatMap((row) => {
    const cells = results.runs.map((r) => row.cell(r));
    if (cells.every((c) => c.text === '–')) return [];
    const exponent = cells.some((c) => c.y !== undefined)
      ? growthExponent(results.runs.map((r, i) => ({ k: r.k, y: cells[i].y })))
      : undefined;
    return `| ${row.label} | ${cells.map((c) => c.text).join(' | ')} | ${exponent === undefined ? '' : exponent.toFixed(2)} |`;
  });
  const load = `load average ${results.machine.loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${results.machine.loadAfter?.map((l) => l.toFixed(1)).join(' ') ?? '?'} after, on ${results.machine.cpus} cores`;
  return `Scale bench ${results.date}: ${results.corpus} × K (${load}).\n\n${[header, rule, ...body].join('\n')}\n`;
}
