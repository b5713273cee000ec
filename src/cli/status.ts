import { storeStatus, type StoreStatus } from '../status.ts';
import { COMMON_HELP, parse, storeDir } from './options.ts';

const HELP = `usage: weave status [options]

What the store holds and how current it is: sessions, the source files it was read from (and
how many are gone from their folders, kept in the archive), sessions read from the archive
alone, the newest change it has read, lines in the sources it has not read yet, the size of
its graphs and of its archive, and the process writing it, if any. Reads no graph.

options:
  --json             print it as JSON
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const status = await storeStatus(storeDir(values));
  process.stdout.write(values.json ? `${JSON.stringify(status, null, 2)}\n` : render(status));
  return 0;
}

const n = (x: number) => x.toLocaleString('en');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const when = (iso: string | undefined) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : 'never');

function render(s: StoreStatus): string {
  if (!s.soul) return `no store in ${s.dir} yet: weave ingest makes one\n`;
  const rows: [string, string][] = [
    ['store', `${s.dir} (soul ${s.soul})`],
    [
      'sessions',
      `${n(s.sessions)}${s.archivedOnly ? ` (${n(s.archivedOnly)} archived-only: their files are gone, read from the archive)` : ''} in ${n(s.graphs)} graphs`,
    ],
    [
      'sources',
      `${n(s.sources.transcripts)} transcripts and ${n(s.sources.files - s.sources.transcripts)} side files tracked${s.sources.gone ? `; ${n(s.sources.gone)} gone from their folders, kept in the archive` : ''}`,
    ],
    ['last change', `${when(s.lastChange)} (the newest source read); the store was written ${when(s.updated)}`],
    [
      'pending',
      s.pending.lines || s.pending.files
        ? `${n(s.pending.lines)} lines not read yet${s.pending.files ? `, ${n(s.pending.files)} of them in transcripts new to the store` : ''} (weave ingest reads them; weave serve keeps up)`
        : 'none: every complete line of the sources is in the store',
    ],
    ['size', `graphs ${mb(s.bytes.graphs)} · archive ${mb(s.bytes.archive)}`],
    [
      'writer',
      s.writer
        ? `pid ${s.writer.pid} (${s.writer.command}, since ${s.writer.since})${s.writer.stale ? ', no longer running: the next writer takes over' : ''}`
        : 'none',
    ],
  ];
  return `${rows.map(([k, v]) => `${k.padEnd(12)}${v}`).join('\n')}\n`;
}
