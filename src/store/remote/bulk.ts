import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../running.ts';
import type { BulkConfig } from './config.ts';
import { graphQuads } from './rdf11.ts';

/**
 * Virtuoso's bulk loader, the engine's fastest documented way in: the graphs are written as
 * N-Quads files into a directory in its DirsAllowed, each graph already there is cleared first
 * (the loader only adds; `DELETE FROM RDF_QUAD WHERE G = …` under `log_enable(3,1)` is the
 * documented fast delete of a whole graph), the files are registered (`ld_add`), loaded by
 * `rdf_loader_run` in several loaders side by side, and a `checkpoint` makes it durable (the
 * loader writes no transaction log). isql is the way in: its password is on its command line,
 * never in a message or log.
 */

/** A graph to load: its name, and its N-Quads as Weave stores them (read only when written out). */
export interface BulkGraph {
  graph: string;
  read: () => Promise<Buffer>;
}

/** The graph named for files whose lines name none (none of Weave's do). */
const NO_GRAPH = 'urn:weave:bulk:default';
/** A file is closed once it holds this much: several files let several loaders work (Virtuoso advises splitting). */
const FILE_BYTES = 8 * 1024 * 1024;
/** The files of one writer: `weave-bulk-<host>-<pid>-<tag>-<n>.nq`; a dead pid's are left by a killed load. */
const FILE_PREFIX = 'weave-bulk-';

export class BulkLoadError extends Error {}
/** isql is not there: no second load would find it either. */
class IsqlMissing extends BulkLoadError {}

/** How long a failed load waits before it is made again. */
const RETRY_AFTER_MS = 1000;

export class VirtuosoLoader {
  private readonly host = hostname().replace(/[^A-Za-z0-9.]/g, '_');

  constructor(
    readonly config: BulkConfig,
    readonly tripleTerms: boolean,
    /** Told of a load that failed and is made again: it costs the run nothing, and says what the store went through. */
    private readonly onNote?: (note: string) => void,
  ) {}

  /**
   * Replaces each of `graphs` with its quads and clears each of `cleared`. A load that fails is
   * made once more, whole, a second later: it clears its graphs before it adds to them, so a
   * second load of the same graphs ends as one would, and an error of the moment (a deadlock, an
   * isql cut off) costs the run nothing but a note of it. A second failure leaves them in no
   * known state: the caller sends them again (remote/gathered.ts keeps a journal of it).
   */
  async load(graphs: readonly BulkGraph[], cleared: readonly string[] = []): Promise<void> {
    const names = graphs.map((g) => g.graph).concat(cleared);
    for (const graph of names) if (!safeIri(graph)) throw new BulkLoadError(`the graph ${graph} cannot be named in SQL: it is not loaded`);
    try {
      await this.loadOnce(graphs, names);
    } catch (e) {
      if (!(e instanceof BulkLoadError) || e instanceof IsqlMissing) throw e;
      this.onNote?.(`a bulk load of ${graphs.length} graphs failed (${e.message}); it is made again, whole`);
      await new Promise((r) => setTimeout(r, RETRY_AFTER_MS));
      await this.loadOnce(graphs, names);
    }
  }

  private async loadOnce(graphs: readonly BulkGraph[], names: readonly string[]): Promise<void> {
    const tag = `${FILE_PREFIX}${this.host}-${process.pid}-${randomBytes(4).toString('hex')}`;
    // Each file as it is made: one written before a later one fails goes too.
    const files: string[] = [];
    try {
      await this.writeFiles(graphs, tag, files);
      const server = files.map((f) => this.serverPath(f));
      await this.isql([
        'log_enable(3,1);',
        ...names.map((g) => `DELETE FROM DB.DBA.RDF_QUAD WHERE G = iri_to_id('${g}', 0);`),
        ...server.map((f) => `ld_add('${f}', '${NO_GRAPH}');`),
      ]);
      if (server.length) {
        await Promise.all(
          Array.from({ length: Math.min(this.config.loaders ?? 2, server.length) }, () => this.isql(['rdf_loader_run();'])),
        );
        await this.settled(tag);
      }
      await this.isql(['checkpoint;']);
    } catch (e) {
      // A failed load's loaders still at one of its files are waited for, and those waiting taken off the list.
      if (files.length) await this.settled(tag, true).catch(() => undefined);
      throw e;
    } finally {
      if (files.length) await this.forget(tag).catch(() => undefined);
      await Promise.all(files.map((f) => rm(f, { force: true })));
    }
  }

  /**
   * Removes what a killed load of this machine left: its files and their rows in the load list,
   * once no loader is still at one of them (the server goes on loading after its client is gone).
   */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.config.directory);
    } catch (e) {
      throw new BulkLoadError(
        `the bulk loader's directory ${this.config.directory} cannot be read: ${(e as NodeJS.ErrnoException).code ?? e}`,
      );
    }
    const mine = new RegExp(`^(${FILE_PREFIX}${this.host.replace(/\./g, '\\.')}-(\\d+)-[0-9a-f]+)-\\d+\\.nq$`);
    const stale = new Map<string, string[]>();
    for (const name of names) {
      const m = mine.exec(name);
      if (!m || isRunning(Number(m[2]))) continue;
      stale.set(m[1], [...(stale.get(m[1]) ?? []), join(this.config.directory, name)]);
    }
    for (const [tag, files] of stale) {
      await this.settled(tag, true);
      await this.forget(tag);
      await Promise.all(files.map((f) => rm(f, { force: true })));
    }
    return stale.size;
  }

  /** Writes the graphs as N-Quads files of about FILE_BYTES each, adding each one's path to `files` as it is made. */
  private async writeFiles(graphs: readonly BulkGraph[], tag: string, files: string[]): Promise<void> {
    let parts: Buffer[] = [];
    let size = 0;
    const write = async () => {
      if (!size) return;
      const path = join(this.config.directory, `${tag}-${files.length}.nq`);
      const handle = await open(path, 'wx').catch((e) => {
        throw new BulkLoadError(`${path}: cannot be written for the bulk loader: ${(e as NodeJS.ErrnoException).code ?? e}`);
      });
      files.push(path);
      try {
        await handle.writev(parts);
      } finally {
        await handle.close();
      }
      parts = [];
      size = 0;
    };
    for (const [i, { graph, read }] of graphs.entries()) {
      for (const part of graphQuads(await read(), graph, this.tripleTerms, `g${i}t`)) {
        parts.push(part);
        size += part.length;
      }
      if (size >= FILE_BYTES) await write();
    }
    await write();
  }

  /**
   * Waits until every file of `tag` is loaded (a loader of another writer may hold one; one left
   * waiting is loaded here); throws on a file that failed. A killed writer's files (`stale`) are
   * not loaded: those waiting are taken off the list, and only those a loader holds are waited for.
   * A loader whose isql was killed with its writer (Ctrl-C, a killed process group) stops, and
   * leaves its file marked as loading for good: a file marked so while the server runs no loader,
   * twice running, is no one's. A stale one is then done with; one of this load fails it.
   */
  private async settled(tag: string, stale = false): Promise<void> {
    const like = `${this.serverPath(join(this.config.directory, tag))}-%`;
    let abandoned = false;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      const out = await this.isql([
        ...(stale ? [`DELETE FROM DB.DBA.LOAD_LIST WHERE LL_FILE LIKE '${like}' AND LL_STATE = 0;`] : []),
        // Before the counts: a file seen loading after the server ran no loader was left so earlier.
        "status('');",
        `SELECT 'weave-waiting', COUNT(*) FROM DB.DBA.LOAD_LIST WHERE LL_FILE LIKE '${like}' AND LL_STATE = 0;`,
        `SELECT 'weave-loading', COUNT(*) FROM DB.DBA.LOAD_LIST WHERE LL_FILE LIKE '${like}' AND LL_STATE = 1;`,
        `SELECT 'weave-failed', LL_FILE, LL_ERROR FROM DB.DBA.LOAD_LIST WHERE LL_FILE LIKE '${like}' AND LL_ERROR IS NOT NULL;`,
      ]);
      const failed = out.split('\n').find((l) => l.startsWith('weave-failed'));
      if (failed && !stale)
        throw new BulkLoadError(`Virtuoso's bulk loader failed on ${failed.slice('weave-failed'.length).trim().replace(/\s+/, ': ')}`);
      const count = (what: string) => Number(new RegExp(`^weave-${what}\\s+(\\d+)`, 'm').exec(out)?.[1] ?? Number.NaN);
      const [waiting, loading] = [count('waiting'), count('loading')];
      // An answer without the counts (another isql's way of printing) would be waited on for ever.
      if (Number.isNaN(waiting) || Number.isNaN(loading))
        throw new BulkLoadError(`isql at ${this.config.isql} did not say how many files wait and load`);
      if (waiting === 0 && loading === 0) return;
      const left = loading > 0 && noLoaderRuns(out);
      if (left && abandoned) {
        if (stale) return;
        throw new BulkLoadError(`Virtuoso's bulk loader stopped at ${loading} file(s) of this load, and no loader is at them`);
      }
      abandoned = left;
      if (!stale && waiting > 0 && loading === 0) await this.isql(['rdf_loader_run();']);
      else await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async forget(tag: string): Promise<void> {
    await this.isql([`DELETE FROM DB.DBA.LOAD_LIST WHERE LL_FILE LIKE '${this.serverPath(join(this.config.directory, tag))}-%';`]);
  }

  private serverPath(local: string): string {
    const server = this.config.serverDirectory;
    return server ? join(server, local.slice(this.config.directory.length)) : local;
  }

  /** Runs statements in one isql session; its output, or a BulkLoadError with isql's first error line. */
  private isql(statements: string[]): Promise<string> {
    const command = this.config.command ?? 'isql-vt';
    const where = `isql at ${this.config.isql}`;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [this.config.isql, this.config.user, this.config.password, 'VERBOSE=OFF', 'BANNER=OFF', 'PROMPT=OFF'], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => out.push(d));
      child.once('error', (e) =>
        reject(
          (e as NodeJS.ErrnoException).code === 'ENOENT'
            ? new IsqlMissing(
                `${command} is not installed: the bulk loader is reached through Virtuoso's isql (set bulk.command in remote.json)`,
              )
            : new BulkLoadError(`${where}: ${e.message}`),
        ),
      );
      child.once('close', (code) => {
        const text = Buffer.concat(out).toString('utf8');
        const error = text.split('\n').find((l) => l.startsWith('*** Error'));
        if (error || code !== 0) {
          const message = (error ?? `exited with ${code}`).replace(/^\*\*\* Error /, '').slice(0, 300);
          const login = /Bad login|CL034/.test(message) ? ' (check bulk.user and bulk.password in remote.json)' : '';
          reject(new BulkLoadError(`${where}: ${message}${login}`));
        } else resolve(text);
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(`${statements.join('\n')}\n`);
    });
  }
}

/**
 * Whether Virtuoso's `status('')` report, in isql's output, says the server runs no thread but the
 * one asking and none waits: then no bulk loader is at any file. Unsaid: one may be.
 */
export function noLoaderRuns(out: string): boolean {
  const m = /Currently (\d+) threads running (\d+) threads waiting/.exec(out);
  return !!m && Number(m[1]) <= 1 && Number(m[2]) === 0;
}

/** An IRI written into a SQL string as it is: no quote, backslash, space or control character. */
function safeIri(iri: string): boolean {
  return /^[^'\\\s\u0000-\u001f<>"{}|^`]+$/.test(iri);
}
