/**
 * Scale bench step: `weave ingest` as the command runs it, into a fresh store: the readers run on
 * each session as it is written, then `weave detect` on what is left (nothing, in a fresh store).
 * The readers' share is timed apart (ingest reports it), so the two phases are side by side.
 * Args: STORE PATH...
 */
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { READERS } from '../../src/readers/registry.ts';
import { capacityNotice, embeddedStoreSize } from '../../src/store/ceiling.ts';
import { measure, peakRssMiB, report } from './child.ts';

const [storeDir, ...paths] = process.argv.slice(2);

const read = new Set<string>();
const run = await measure(() =>
  ingest(paths, { storeDir, soul: 'local', force: true, readers: { list: READERS }, onSession: (s) => void read.add(s.sessionId) }),
);
const rest = await measure(() => detect({ storeDir, onlyStale: true, done: read }));
const r = run.value;
const inStream = r.readers ?? { millis: 0, cpuMillis: 0, graphs: 0, findings: {}, problems: [] };
const findings = (f: Record<string, number>) => Object.values(f).reduce((a, b) => a + b, 0);
report({
  step: 'ingest',
  wallMs: run.wallMs - inStream.millis,
  cpuMs: run.cpuMs - inStream.cpuMillis,
  peakRssMiB: peakRssMiB(),
  sessions: r.sessions,
  files: r.files,
  records: r.records,
  bytes: r.bytes,
  quads: r.quads,
  // What `weave ingest` says of this store's size (nothing below the notice's share).
  notice: capacityNotice((await embeddedStoreSize(storeDir))!) ?? null,
});
report({
  step: 'readers',
  wallMs: inStream.millis + rest.wallMs,
  cpuMs: inStream.cpuMillis + rest.cpuMs,
  peakRssMiB: peakRssMiB(),
  graphs: inStream.graphs + rest.value.graphs,
  findings: findings(inStream.findings) + findings(rest.value.findings),
  problems: inStream.problems.length + rest.value.problems.length,
});
