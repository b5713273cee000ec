/**
 * A runaway query against the endpoint's answers (issue 25), on a store, with `weave serve
 * --workers 2 --timeout T` (T from BENCH_OUTAGE_TIMEOUT, default the server's own 30 s):
 *
 * - alone, as the tester sent it: a 64-byte cross join as a form POST and nothing else
 *   until its 504; from then a cheap query every 100 ms until one is answered: the gap is from
 *   the 504 to that answer (before the fix, nothing answered until a copy had opened again);
 * - beside a second client: two different runaways back to back (the same one again is refused
 *   at once now) while another client sends a cheap query each time the last is answered: the
 *   longest time without an answer, and what they got.
 *
 * Then both again with `--spare --workers 3` (a second copy kept open at rest, free of long jobs).
 * BENCH_BEFORE=DIR (a checkout of an earlier Weave, `npm ci` done) measures its `weave serve` too.
 * Alone: `node --import tsx bench/outage.ts STORE_DIR`.
 */
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import { printRows, type Row, serve } from './resident.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
const CHEAP = 'ASK { ?s ?p ?o }';

interface Outage {
  /** From the lone runaway's 504 to the first answer after it. */
  afterCutMs: number;
  cutStatus: number;
  /** Statuses the cheap queries after the cut got, with how many of each. */
  afterCut: Record<number, number>;
  /** The longest time the second client went without an answer while runaways came back to back. */
  longestGapMs: number;
  /** The same, while the first runaway ran (up to its 504): a lone runaway's gap. */
  longestGapFirstMs: number;
  besideStatuses: Record<number, number>;
  runawayStatuses: number[];
}

const runaway = (base: string, query = CROSS_JOIN) =>
  fetch(`${base}/sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query }).toString(),
  }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });

const cheap = (base: string) =>
  fetch(`${base}/sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
    body: CHEAP,
  }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });

const count = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((all, s) => Object.assign(all, { [s]: (all[s] ?? 0) + 1 }), {});

async function measure(checkout: string, dir: string, port: number, timeoutSeconds: number, extra: string[] = []): Promise<Outage> {
  const server = await serve(checkout, dir, extra.includes('--spare') ? 3 : 2, port, timeoutSeconds, extra);
  try {
    // A spare is opened once the first copy answers, and again after a cut: each part begins once it is open.
    const spareOpen = async () => {
      while (extra.includes('--spare')) {
        const status = (await fetch(`${server.base}/status`).then((r) => r.json())) as { workers?: { ready?: number; copies?: number } };
        if (status.workers?.ready === 2 && status.workers.copies === 2) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await spareOpen();
    const cutStatus = await runaway(server.base);
    const cutAt = performance.now();
    const afterCut: number[] = [];
    for (;;) {
      const status = await cheap(server.base);
      afterCut.push(status);
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const afterCutMs = performance.now() - cutAt;
    // Back to normal before the second part: one copy answering (two with a spare), nothing running long.
    await new Promise((r) => setTimeout(r, 3000));
    await spareOpen();

    let done = false;
    let firstCutAt = Number.POSITIVE_INFINITY;
    const attacker = (async () => {
      const first = await runaway(server.base, `${CROSS_JOIN} LIMIT 1`);
      firstCutAt = performance.now();
      const statuses = [first, await runaway(server.base, `${CROSS_JOIN} LIMIT 2`)];
      done = true;
      return statuses;
    })();
    const answeredAt = [performance.now()];
    const beside: number[] = [];
    while (!done) {
      beside.push(await cheap(server.base));
      answeredAt.push(performance.now());
    }
    const runawayStatuses = await attacker;
    const gaps = answeredAt.slice(1).map((at, i) => ({ ms: at - answeredAt[i], during: at <= firstCutAt ? 'first' : 'second' }));
    const longest = (during?: string) => Math.max(0, ...gaps.filter((g) => !during || g.during === during).map((g) => g.ms));
    return {
      afterCutMs,
      cutStatus,
      afterCut: count(afterCut),
      longestGapMs: longest(),
      longestGapFirstMs: longest('first'),
      besideStatuses: count(beside),
      runawayStatuses,
    };
  } finally {
    await server.stop();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const statuses = (c: Record<number, number>) =>
  Object.entries(c)
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');

export async function outageBench(dir: string, options: { before?: string; port?: number } = {}): Promise<Row[]> {
  const timeout = Number(process.env.BENCH_OUTAGE_TIMEOUT ?? 30);
  const port = options.port ?? 7897;
  const before = options.before ? await measure(options.before, dir, port, timeout) : undefined;
  const after = await measure(REPO, dir, port, timeout);
  const spare = await measure(REPO, dir, port, timeout, ['--spare']);
  const either = (f: (o: Outage) => string) => ({ before: before ? f(before) : '(BENCH_BEFORE)', after: f(after) });
  const ratio = (f: (o: Outage) => number) => (before && f(after) > 0 ? `×${(f(before) / f(after)).toFixed(2)}` : '');
  return [
    {
      figure: `a lone runaway (--timeout ${timeout}): its status`,
      ...either((o) => String(o.cutStatus)),
      ratio: '',
    },
    {
      figure: 'then from its 504 to the first answer',
      ...either((o) => s(o.afterCutMs)),
      ratio: ratio((o) => o.afterCutMs),
    },
    { figure: 'what the cheap queries after the cut got', ...either((o) => statuses(o.afterCut)), ratio: '' },
    {
      figure: 'two runaways back to back, a second client asking: its longest gap while the first runs',
      ...either((o) => s(o.longestGapFirstMs)),
      ratio: ratio((o) => o.longestGapFirstMs),
    },
    {
      figure: 'two runaways back to back: longest gap without an answer for a second client',
      ...either((o) => s(o.longestGapMs)),
      ratio: ratio((o) => o.longestGapMs),
    },
    {
      figure: 'what that client got (runaways got)',
      ...either((o) => `${statuses(o.besideStatuses)} (${o.runawayStatuses.join(', ')})`),
      ratio: '',
    },
    // The same server with a second copy kept open at rest: nothing waits for a copy to open.
    { figure: "with --spare: from the lone runaway's 504 to the first answer", before: '', after: s(spare.afterCutMs), ratio: '' },
    { figure: 'with --spare: the same, while the first runs', before: '', after: s(spare.longestGapFirstMs), ratio: '' },
    {
      figure: 'with --spare: two runaways back to back, longest gap for a second client',
      before: '',
      after: s(spare.longestGapMs),
      ratio: '',
    },
    {
      figure: 'with --spare: what that client got (runaways got)',
      before: '',
      after: `${statuses(spare.besideStatuses)} (${spare.runawayStatuses.join(', ')})`,
      ratio: '',
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node --import tsx bench/outage.ts STORE_DIR');
  printRows(await outageBench(dir, { before: process.env.BENCH_BEFORE }));
}
