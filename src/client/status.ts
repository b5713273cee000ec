import { wrapWords } from '../query/fit.ts';
import { REBUILD, storeAge } from '../store/emitter.ts';
import { COMMON_HELP, outputWidth, parse, storeDir, WIDE_HELP, WIDE_OPTION } from '../cli/options.ts';
import { storeStatus, type StoreStatus } from '../status.ts';
import { noStoreLine } from '../store/fixtures.ts';
import { externalStore } from './external.ts';
import type { LightCommand, Printed } from './served.ts';
import { utcSeconds } from '../time.ts';

/**
 * `weave status`: its arguments and its printout. It reads no graph, only the manifest, the run
 * file and a look at the sources, so the light entry answers it itself, with or without a
 * server: a server would do the same look a round trip away (measured slower on the corpus, its
 * thread busier than a fresh one), and it starts none.
 */

export const STATUS_HELP = `usage: weave status [options]

What the store holds and how current it is: sessions, the source files it was read from (and
how many are gone from their folders, kept in the archive), sessions read from the archive
alone, the newest change it has read, lines in the sources it has not read yet, which Weave
built its session graphs (weave ingest --rebuild rebuilds those an older one built), the size
of its graphs and of its archive, the process writing it, if any, and the server running for
it, if any (a weave serve, or a resident server a command started). Reads no graph.

options:
  --json             print it as JSON
${WIDE_HELP}
${COMMON_HELP}
`;

export interface StatusRequest {
  storeDir: string;
  json: boolean;
  /** `--wide`: lines unbroken, whatever the terminal's width. */
  wide: boolean;
}

export async function parseStatusArgs(args: string[]): Promise<StatusRequest | undefined> {
  // --no-daemon is taken, as every command reading the store takes it; status never asks a server.
  const { values } = parse(args, { json: { type: 'boolean' }, 'no-daemon': { type: 'boolean' }, ...WIDE_OPTION });
  if (values.help) return undefined;
  return { storeDir: storeDir(values), json: !!values.json, wide: !!values.wide };
}

function statusText(request: StatusRequest, status: StoreStatus, external?: string): Printed {
  const shown = external ? { ...status, external } : status;
  return request.json ? { stdout: `${JSON.stringify(shown, null, 2)}\n`, form: 'code' } : { stdout: render(shown, outputWidth(request)) };
}

/** The endpoint of the external store that holds the graphs, without any user or password in its URL. */
async function externalEndpoint(dir: string): Promise<string | undefined> {
  const remote = await externalStore(dir);
  if (!remote) return undefined;
  const url = new URL(remote.endpoint);
  url.username = '';
  url.password = '';
  return url.href;
}

/** The status looked at here. */
export async function statusHere(request: StatusRequest): Promise<Printed> {
  const status = await storeStatus(request.storeDir);
  // No store: the one line every command says of it, and as they do, a failure.
  if (!status.soul) return { stdout: '', warnings: `weave status: ${await noStoreLine(request.storeDir)}\n`, code: 1 };
  return statusText(request, status, await externalEndpoint(request.storeDir));
}

export const STATUS: LightCommand<StatusRequest> = { name: 'status', parse: parseStatusArgs, here: statusHere };

const n = (x: number) => x.toLocaleString('en');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const when = (iso: string | undefined) => (iso ? utcSeconds(iso) : 'never');

/** Sessions found here that another soul holds in the external store, by soul. */
function heldNote(held: Record<string, number> | undefined): string {
  if (!held) return '';
  const souls = Object.entries(held).map(([soul, count]) => `${n(count)} under soul ${soul}`);
  return `; copies held once in the external store by other machines: ${souls.join(', ')}`;
}

/** A store's status (statusHere has said when there is none) as labelled lines, each value broken at spaces to fit `width` under its label's column. */
function render(s: StoreStatus & { external?: string }, width = Number.POSITIVE_INFINITY): string {
  const rows: [string, string][] = [
    ['store', `${s.dir} (soul ${s.soul})`],
    // What follows is this machine's part of it: the sessions it read and sent there.
    ...(s.external
      ? [['external', `${s.external} holds the graphs and answers the queries; the figures below are this machine's`] as [string, string]]
      : []),
    [
      'sessions',
      `${n(s.sessions)}${s.archivedOnly ? ` (${n(s.archivedOnly)} archived-only: their files are gone, read from the archive)` : ''} in ${n(s.graphs)} graphs${heldNote(s.heldElsewhere)}`,
    ],
    [
      'sources',
      `${n(s.sources.transcripts)} transcripts and ${n(s.sources.files - s.sources.transcripts)} side files tracked${s.sources.gone ? `; ${n(s.sources.gone)} gone from their folders, kept in the archive` : ''}${s.versions?.versions ? `; ${n(s.versions.versions)} earlier version(s) of ${n(s.versions.files)} file(s) kept in the archive (${n(s.versions.lines)} lines read of them)` : ''}`,
    ],
    ['built by', builtBy(s.builtBy)],
    ['last change', `${when(s.lastChange)} (the newest source read); the store was written ${when(s.updated)}`],
    ['pending', pending(s.pending)],
    ['size', `graphs ${mb(s.bytes.graphs)} · archive ${mb(s.bytes.archive)}`],
    [
      'writer',
      s.writer
        ? `pid ${s.writer.pid} (${s.writer.command}, since ${when(s.writer.since)})${s.writer.stale ? ', no longer running: the next writer takes over' : ''}`
        : 'none',
    ],
    ['server', s.server ? server(s.server) : 'none'],
  ];
  return `${rows.map(([k, v]) => wrapWords(`${k.padEnd(12)}${v}`, 12, ' '.repeat(12), width).join('\n')).join('\n')}\n`;
}

/** The Weaves that built the session graphs, and what to do when one is not this. */
function builtBy({ program, sessions }: StoreStatus['builtBy']): string {
  const age = storeAge(sessions, program);
  const counts = Object.entries(sessions)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([version, count]) => `${version} (${n(count)} session${count === 1 ? '' : 's'})`);
  if (age.by === 'this') return counts.length ? `${program}, this Weave` : 'no sessions yet';
  const verdict = age.by === 'older' ? `; this is ${program}: ${REBUILD}` : `; this is ${program}, older: update Weave`;
  return `${counts.join(', ')}${verdict}`;
}

/** Lines to read, by why: appended, in transcripts new to the store, in transcripts changed since read (read again whole). */
function pending({ lines, files, inNew = 0, changed = { files: 0, lines: 0 } }: StoreStatus['pending']): string {
  if (!lines && !files && !changed.files) return 'none: every complete line of the sources is in the store';
  const transcripts = (k: number) => `${n(k)} transcript${k === 1 ? '' : 's'}`;
  const parts = [
    lines - inNew - changed.lines && `${n(lines - inNew - changed.lines)} appended`,
    files && `${n(inNew)} in ${transcripts(files)} new to the store`,
    changed.files &&
      `${n(changed.lines)} in ${transcripts(changed.files)} changed since read (cut short, replaced or rewritten), read again whole`,
  ].filter(Boolean);
  return `${n(lines)} lines not read yet: ${parts.join('; ')} (weave ingest reads them; weave serve keeps up)`;
}

/** The server's line: where it listens, since when, and for a resident one, who started it and when it stops. */
function server(s: NonNullable<StoreStatus['server']>): string {
  const how = s.startedBy
    ? `started by ${s.startedBy}${s.idleExitSeconds ? `; stops after ${idle(s.idleExitSeconds)} without a request` : ''}`
    : 'weave serve';
  return `pid ${s.pid} at ${s.url} since ${when(s.since)} (${how})`;
}

const idle = (seconds: number) => (seconds % 60 ? `${seconds} s` : `${seconds / 60} min`);
