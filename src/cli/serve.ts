import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { walkFiles } from '../acquire/files.ts';
import { isRdfMode, type RdfMode } from '../rdf/rdf-mode.ts';
import { DEFAULTS, isLoopback, type ServerConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';
import { capacityNotice, embeddedStoreSize, LOAD_CEILING } from '../store/ceiling.ts';
import { storeEmitterNotice } from '../store/emitter.ts';
import { fixturesStoreDir } from '../store/fixtures.ts';
import { CONTENT_HELP, CONTENT_OPTIONS, policyFrom } from './content.ts';
import { CliError, commonHelp, parse, soul, storeDir } from './options.ts';
import { tell } from './tell.ts';
import { printable } from '../terminal.ts';
import { loadingBar, progressBar } from './progress.ts';
import { selectRows } from '../server/http/select.ts';
import { SESSION_COUNT } from '../server/dataset-stats.ts';
import { defaultRoots, defaultSources, FIXTURES_DIR, fixturesNote } from './sources.ts';
import { printHelp } from './help.ts';
import { counted } from './counted.ts';

const HELP = `usage: weave serve [PATH...] [options]

Serves the store over HTTP: the SPARQL 1.1 Protocol at /sparql (and /query), the Graph Store
Protocol at /store, a query page (YASGUI) at /, describe pages for every resource, VoID at
/void, /healthz, /status and Prometheus /metrics. It listens at once, then ingests PATH...
(default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects; the bundled fixtures, in a store
of their own, when those hold no transcript and no --store is named, until the first is written
there: then those, in your store, at the same address) in the background, runs the
readers (weave detect) on what changed, as weave ingest does, and keeps the store live as sessions
are written: the file events bring new lines into the graph within two seconds (polling where they
do not arrive).

options:
  --host HOST          address to listen on (default ${DEFAULTS.host}); beyond loopback a token is required
  --port N             port (default ${DEFAULTS.port}; 0 picks a free one)
  --timeout SECONDS    longest a query may take, queueing included (default ${DEFAULTS.timeoutSeconds}); past it the
                       query's worker is stopped and replaced, and the client gets 504; the same query
                       sent again within 2 minutes (with no longer ?timeout=) gets 504 at once
  --workers N          the most copies of the store open at once (default: cores, 2 to 4): one is kept; a
                       second opens only while a query holds the first too long, and closes after
  --spare              keep a second copy open at rest (twice the memory), free of long queries: while
                       one runs long (or is cut at the timeout) the other answers at once, and a third
                       opens (--workers defaults to 3 at least) for a runaway sent right after
  --queue N            requests that may wait for a worker before 503 + Retry-After (default ${DEFAULTS.queueLimit})
  --max-result-mb N    largest result served (default ${DEFAULTS.maxResultMb}); bigger answers get 507
  --max-body-mb N      largest request body (default ${DEFAULTS.bodyLimitMb}); bigger requests get 413
  --allow-update       accept SPARQL Update and Graph Store writes (they need the token)
  --token TOKEN        bearer token for writes, and for everything off loopback (default $WEAVE_TOKEN)
  --cors-origin LIST   origins (comma-separated, or *) allowed to read answers cross-site
                       (default: none, since transcripts hold secrets)
  --service-allow URL  an endpoint federated queries may contact: SERVICE <URL> and source=URL
                       (repeatable, or comma-separated); no other is ever contacted (default: none,
                       federation off); a store held here only, not an external one
  --rdf MODE           how triple terms are written for clients that do not say (?rdf= overrides):
                       1.2 (default), 1.1 (RDF 1.1 reification; literals in solutions), star
  --refresh SECONDS    how often to look for new or grown sessions whatever the file events say
                       (default ${DEFAULTS.refreshSeconds}; 0: never)
  --no-watch           read changes only every --refresh, not as the file events tell of them
  --no-ingest          serve the store as it is; read no transcripts (what another process writes
                       to it, a weave ingest, is loaded before the next answer)
  --idle-exit SECONDS  stop after SECONDS without a request (default: never)
  --started-by NAME    a resident server, started by the command NAME (weave usage, …, when none
                       runs: see README): weave status names it, it stops when its store no longer
                       names it, and a weave serve of the same store takes over from it
  --no-detect          do not run the readers (weave detect) after each ingest run
  --no-archive         do not keep a copy of what is read in the store's archive
  --queries DIR        example queries for the page (default: the queries/ folder of this checkout)
${CONTENT_HELP}
${commonHelp('also log each request (method, route, status, time; never the query)')}
`;

const QUERIES_DIR = fileURLToPath(new URL('../../queries/', import.meta.url));

/**
 * `weave serve`. `port`: the port a server serving the bundled fixtures listened on, when the
 * user's first transcripts appeared and it stepped aside for one serving them at the same address.
 */
export async function main(args: string[], port?: number): Promise<number> {
  const { values, positionals } = parse(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    timeout: { type: 'string' },
    workers: { type: 'string' },
    spare: { type: 'boolean' },
    queue: { type: 'string' },
    'max-result-mb': { type: 'string' },
    'max-body-mb': { type: 'string' },
    'allow-update': { type: 'boolean' },
    token: { type: 'string' },
    'cors-origin': { type: 'string' },
    'service-allow': { type: 'string', multiple: true },
    rdf: { type: 'string' },
    refresh: { type: 'string' },
    'no-ingest': { type: 'boolean' },
    'idle-exit': { type: 'string' },
    'started-by': { type: 'string' },
    queries: { type: 'string' },
    verbose: { type: 'boolean' },
    'no-detect': { type: 'boolean' },
    'no-archive': { type: 'boolean' },
    'no-watch': { type: 'boolean' },
    ...CONTENT_OPTIONS,
  });
  if (values.help) {
    printHelp(HELP);
    return 0;
  }
  const number = (name: string, value: string | undefined, fallback: number, min = 0) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min) throw new CliError(`--${name} must be a number of at least ${min}, not "${value}"`, 2);
    return n;
  };
  const log = (line: string) => tell(process.stderr, `weave serve: ${printable(line, { keepNewlines: true })}`);
  // Once the server runs, its idle timeout stops it as a signal would; a stop asked before then waits for it.
  let early: string | undefined;
  let stopNow: (why: string) => void = (why) => (early ??= why);
  if (values['no-ingest'] && positionals.length) throw new CliError('--no-ingest serves the store as it is; it takes no PATH', 2);

  // Every option is checked before anything is read.
  const dir = storeDir(values);
  const config: ServerConfig = {
    storeDir: dir,
    soul: await soul(values, dir, (made, path) => log(`this machine's soul is ${made} (kept in ${path}); --soul ID names another`)),
    host: values.host ?? DEFAULTS.host,
    port: port ?? number('port', values.port, DEFAULTS.port),
    timeoutMs: number('timeout', values.timeout, DEFAULTS.timeoutSeconds, 0.001) * 1000,
    // A spare wants a third copy while a runaway holds one (pool.ts).
    workers: Math.round(number('workers', values.workers, Math.max(values.spare ? 3 : 2, Math.min(4, availableParallelism())), 1)),
    spare: values.spare ?? false,
    queueLimit: Math.round(number('queue', values.queue, DEFAULTS.queueLimit)),
    maxResultBytes: number('max-result-mb', values['max-result-mb'], DEFAULTS.maxResultMb, 0.001) * 1e6,
    bodyLimitBytes: Math.round(number('max-body-mb', values['max-body-mb'], DEFAULTS.bodyLimitMb, 0.001) * 1e6),
    allowUpdate: values['allow-update'] ?? false,
    token: values.token ?? (process.env.WEAVE_TOKEN || undefined),
    corsOrigins: (values['cors-origin'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    serviceAllow: (values['service-allow'] ?? [])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
    rdfMode: rdfMode(values.rdf),
    queriesDir: values.queries ?? QUERIES_DIR,
    verbose: values.verbose ?? false,
    log,
    ...(values['idle-exit'] !== undefined && { idleExitSeconds: number('idle-exit', values['idle-exit'], 0, 1) }),
    ...(values['started-by'] !== undefined && { startedBy: values['started-by'] }),
    onIdle: (reason) => stopNow(reason),
  };
  const refreshMs = number('refresh', values.refresh, DEFAULTS.refreshSeconds) * 1000;
  const content = policyFrom(values);

  let sources: Awaited<ReturnType<typeof sourcesToServe>> | undefined;
  if (!values['no-ingest']) {
    sources = positionals.length ? { paths: positionals } : await sourcesToServe(values.store !== undefined);
    // The bundled fixtures get a store of their own, so they never mix with real sessions.
    if (sources.fixtures) config.storeDir = fixturesStoreDir();
    if (sources.paths.length)
      config.ingest = {
        paths: sources.paths,
        note: sources.note,
        refreshMs,
        content,
        detect: !values['no-detect'],
        archive: !values['no-archive'],
        watch: !values['no-watch'],
      };
    if (sources.note) log(sources.note);
  }

  // How full one embedded copy is: from 80% of where it answers every query on it is said; past what it loads, it is not loaded.
  // An external store (remote.json) is held by that store, not in WebAssembly: no ceiling here.
  const size = await embeddedStoreSize(config.storeDir);
  if (size && size.quads > LOAD_CEILING) throw new CliError(capacityNotice(size)!);
  const notice = size && capacityNotice(size);
  if (notice) log(notice);
  // Without an ingest at start the graphs are served as they are: said when another Weave built them.
  const built = config.ingest ? undefined : await storeEmitterNotice(config.storeDir);
  if (built) log(built);

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  tell(
    process.stdout,
    `weave serve: listening on ${server.url} (SPARQL endpoint ${server.url}sparql, store ${config.storeDir}); opening the store`,
  );
  // The other commands read the default store: said here, and by them, so the demo is found from both sides.
  if (config.storeDir === fixturesStoreDir())
    tell(
      process.stdout,
      `weave serve: serving the bundled fixtures from ${config.storeDir}, a store of their own; other commands read it with --store ${config.storeDir}`,
    );
  if (config.token && !isLoopback(config.host))
    tell(process.stdout, `weave serve: open ${server.url}?token=<your token> in a browser once to sign in`);
  tellReady(server, log);

  // Serving the fixtures for want of the user's transcripts: once the first is written, a server of
  // them takes this one's place (its store, its address), as `npm start` would now start.
  let theirs = false;
  const looking = sources?.fixtures
    ? setInterval(() => {
        void userTranscripts().then((found) => {
          if (!found || theirs) return;
          theirs = true;
          log(`transcripts appeared under ${found}: serving them, from ${dir}, at this address`);
          stopNow('the bundled fixtures make way');
        });
      }, APPEARED_POLL_MS)
    : undefined;
  looking?.unref();

  await new Promise<void>((resolve) => {
    const stop = (why?: string) => {
      process.off('SIGINT', signalled);
      process.off('SIGTERM', signalled);
      stopNow = () => undefined;
      log(why ? `stopping: ${why}` : 'stopping');
      void server.close().then(resolve);
    };
    const signalled = () => stop();
    stopNow = stop;
    process.on('SIGINT', signalled);
    process.on('SIGTERM', signalled);
    if (early) stop(early);
  });
  clearInterval(looking);
  return theirs ? main(args, Number(new URL(server.url).port) || undefined) : 0;
}

function rdfMode(value: string | undefined): RdfMode {
  if (value === undefined) return '1.2';
  if (!isRdfMode(value)) throw new CliError(`--rdf must be 1.2, 1.1 or star, not "${value}"`, 2);
  return value;
}

/**
 * The default sources, or the bundled fixtures when they hold no transcript at all: an empty
 * `~/.claude/projects` would otherwise serve an empty store to a new user. Never into a store named
 * with --store (a team's shared store, one ingested on another machine): that one is served as it
 * is, and the default folder, where there is one, read as sessions are written to it.
 */
async function sourcesToServe(storeNamed: boolean): Promise<{ paths: string[]; note?: string; fixtures?: boolean }> {
  const found = await defaultSources(true);
  if (await holdsTheirs(found)) return found;
  if (storeNamed)
    return found.note
      ? { paths: [], note: `no transcripts at ${defaultRoots().join(', ')}: serving the store as it is` }
      : {
          paths: found.paths,
          note: `no transcripts under ${found.paths[0]} yet: serving the store as it is, and reading them as they come`,
        };
  if (found.note) return { ...found, fixtures: true };
  return { paths: [FIXTURES_DIR], note: await fixturesNote(`no transcripts under ${found.paths[0]}`), fixtures: true };
}

/** How often a server of the fixtures looks for the user's first transcript. */
const APPEARED_POLL_MS = 2000;

/** The default folder, once it holds a transcript (a server of the fixtures steps aside for it); looked at again later when it cannot be read. */
async function userTranscripts(): Promise<string | undefined> {
  const found = await defaultSources(true).catch(() => undefined);
  return found && (await holdsTheirs(found)) ? found.paths[0] : undefined;
}

/** Whether the default sources are the user's own and hold a transcript (not the fixtures' fallback). */
async function holdsTheirs(found: { paths: string[]; note?: string }): Promise<boolean> {
  return !found.note && (await holdsTranscript(found.paths[0]));
}

/**
 * Whether a folder holds a `.jsonl` file anywhere below it, walked as ingest walks it: a project
 * folder or transcript linked into it counts (a directory entry that is a link is neither a file
 * nor a folder, so a walk of its own served the fixtures in place of linked sessions).
 */
async function holdsTranscript(dir: string): Promise<boolean> {
  return (await walkFiles(dir, (name) => name.endsWith('.jsonl'))).length > 0;
}

/**
 * Says "ready" when it is true: with no transcripts to read, once a copy of the store is open;
 * else once the first ingest is in and the store answers with its sessions (counted by a query,
 * which waits behind the loads). Until then a terminal shows how far the store has opened, then
 * how far the transcripts are read; meanwhile queries answer with what is loaded so far (/status
 * says how far), and one that cannot wait gets 503 + Retry-After.
 */
function tellReady(server: Awaited<ReturnType<typeof startServer>>, log: (line: string) => void): void {
  const say = (line: string) => tell(process.stdout, `weave serve: ${line}`);
  const started = performance.now();
  const after = () => `${((performance.now() - started) / 1000).toFixed(1)} s after start`;
  const ingester = server.ctx.ingester;
  const opening = loadingBar();
  const reading = progressBar();
  const timer = setInterval(() => {
    const loading = server.ctx.pool.loading;
    if (loading) opening.update(loading.quads, loading.of);
    else if (ingester?.status.state === 'ingesting' && ingester.status.progress) reading.update(ingester.status.progress);
  }, 200);
  timer.unref();
  void server.ready.then(({ quads }) => {
    opening.done();
    const open = `the store is open (${quads.toLocaleString('en')} quads)`;
    if (!ingester) {
      clearInterval(timer);
      return say(`ready ${after()}: ${open}`);
    }
    say(`serving; ${open}, sessions still loading: answers hold what is read so far`);
  });
  void ingester?.firstRun.then(async () => {
    clearInterval(timer);
    reading.done();
    const s = ingester.status;
    if (s.state === 'failed') return log(`ingest failed: ${s.error}; serving the store as it was`);
    const r = s.last;
    if (!r) return;
    log(
      `ingested ${r.sessions} sessions (${r.skipped} unchanged), ${r.records.toLocaleString('en')} records, ${r.quads.toLocaleString('en')} quads in ${(r.millis / 1000).toFixed(1)} s`,
    );
    const sessions = await selectRows(server.ctx, SESSION_COUNT).then(
      (rows) => Number(rows[0]?.n ?? 0),
      () => undefined,
    );
    if (sessions !== undefined) say(`ready ${after()}: the store answers with ${counted(sessions, 'session')}`);
  });
}
