/**
 * Scale bench step: `weave ingest` as the command runs it (ingest, then the readers where a
 * session changed), into a fresh store. Args: STORE PATH...
 */
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { measure, peakRssMiB, report } from './child.ts';

const [storeDir, ...paths] = process.argv.slice(2);

const read = await measure(() => ingest(paths, { storeDir, soul: 'local', force: true }));
const r = read.value;
report({
  step: 'ingest',
  wallMs: read.wallMs,
  cpuMs: read.cpuMs,
  peakRssMiB: peakRssMiB(),
  sessions: r.sessions,
  files: r.files,
  records: r.records,
  bytes: r.bytes,
  quads: r.quads,
});
const readers = await measure(() => detect({ storeDir, onlyStale: true }));
report({
  step: 'readers',
  wallMs: readers.wallMs,
  cpuMs: readers.cpuMs,
  peakRssMiB: peakRssMiB(),
  graphs: readers.value.graphs,
  findings: Object.values(readers.value.findings).reduce((a, b) => a + b, 0),
  problems: readers.value.problems.length,
});
