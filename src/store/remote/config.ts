import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { readTextIfThere } from '../atomic.ts';
import { REMOTE_FILE } from '../layout.ts';
import { defaultStoreDir } from '../paths.ts';

/**
 * An external store: a SPARQL 1.1 endpoint (and its Graph Store Protocol address) that holds the
 * graphs and answers the queries, for when one machine's memory is not enough. A store directory
 * with a `remote.json` is such a store: its manifest and graph files stay here (what was sent,
 * so unchanged sessions are skipped and readers read their spine locally), every graph the writer
 * commits is PUT there, and queries go there. `--store http(s)://…/sparql` names one by its
 * endpoint; its directory is made under the data directory, keyed by the URL.
 */

const REMOTE_FORMAT = 'weave-remote/1';

export interface RemoteConfig {
  format: typeof REMOTE_FORMAT;
  /** The SPARQL 1.1 query endpoint. */
  endpoint: string;
  /** The Graph Store Protocol service (`?graph=IRI`). */
  graphStore: string;
  /** Whether the store takes RDF 1.2 triple terms; without them they are sent in the RDF 1.1 form (rdf11.ts). */
  tripleTerms: boolean;
  /** The engine's own bulk loader, for loads of many graphs (bulk.ts); without it every graph goes by the Graph Store Protocol. */
  bulk?: BulkConfig;
}

/**
 * How Weave reaches Virtuoso's bulk loader: its SQL port through isql, and a directory both can
 * read (in Virtuoso's DirsAllowed) where the graphs are written as N-Quads files for it.
 */
export interface BulkConfig {
  engine: 'virtuoso';
  /** Virtuoso's SQL port as isql takes it: `HOST:PORT` (1111 by default). */
  isql: string;
  user: string;
  password: string;
  /** The directory the files are written to, as this machine sees it. */
  directory: string;
  /** The same directory as Virtuoso sees it (another machine's mount, a container's volume); default `directory`. */
  serverDirectory?: string;
  /** The isql program (default `isql-vt`, Debian's name; elsewhere `isql`). */
  command?: string;
  /** Loaders run side by side (`rdf_loader_run`, default 2: more than the server's cores gains nothing). */
  loaders?: number;
  /** Graphs gathered for one load (default 256): a killed ingest loses at most this many graphs' work. */
  batch?: number;
}

/**
 * An address without the user and password it may carry, and those as a Basic authorization
 * header: sent, never part of a URL that could be logged.
 */
export function withoutCredentials(address: string): { url: URL; authorization?: string } {
  const url = new URL(address);
  const credentials = url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
  url.username = '';
  url.password = '';
  return { url, ...(credentials && { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }) };
}

export function isStoreUrl(spec: string): boolean {
  return /^https?:\/\//i.test(spec);
}

/**
 * The Graph Store service beside an endpoint, by the conventions of the stores Weave is tried
 * with: Virtuoso's `…/sparql` → `…/sparql-graph-crud`, Oxigraph server's `…/query` → `…/store`.
 * Others: write `graphStore` into the directory's remote.json.
 */
function defaultGraphStore(endpoint: string): string | undefined {
  const url = new URL(endpoint);
  if (/\/sparql\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/sparql\/?$/, '/sparql-graph-crud');
  else if (/\/query\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/query\/?$/, '/store');
  else return undefined;
  url.search = '';
  return url.href;
}

/**
 * The directory that stands for the external store at `endpoint` (made, with its remote.json,
 * on first use). The file is written aside and renamed, and readable by the user only: a URL may
 * carry a password.
 */
export function remoteStoreDir(endpoint: string, base = defaultStoreDir()): string {
  const url = new URL(endpoint);
  const key = createHash('sha1').update(url.href).digest('hex').slice(0, 12);
  const dir = join(base, 'remote', `${url.hostname.replace(/[^A-Za-z0-9.-]/g, '_')}-${url.port || url.protocol.slice(0, -1)}-${key}`);
  const path = join(dir, REMOTE_FILE);
  try {
    readFileSync(path);
    return dir;
  } catch {
    // not made yet
  }
  const graphStore = defaultGraphStore(url.href);
  if (!graphStore)
    throw new Error(`${url.href}: which Graph Store Protocol address goes with this endpoint? Write it as "graphStore" in ${path}`);
  const config: RemoteConfig = { format: REMOTE_FORMAT, endpoint: url.href, graphStore, tripleTerms: false };
  mkdirSync(dir, { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 1)}\n`, { mode: 0o600 });
  renameSync(temp, path);
  return dir;
}

/** The store directory's external store, or undefined for a store held here. */
export async function readRemoteConfig(dir: string): Promise<RemoteConfig | undefined> {
  const path = join(dir, REMOTE_FILE);
  const text = await readTextIfThere(path);
  if (text === undefined) return undefined;
  let json: Partial<RemoteConfig>;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path}: not valid JSON`);
  }
  if (json.format !== REMOTE_FORMAT) throw new Error(`${path}: .format: expected "${REMOTE_FORMAT}"`);
  for (const key of ['endpoint', 'graphStore'] as const)
    if (typeof json[key] !== 'string' || !isStoreUrl(json[key])) throw new Error(`${path}: .${key}: expected an http(s) URL`);
  if (typeof json.tripleTerms !== 'boolean') throw new Error(`${path}: .tripleTerms: expected true or false`);
  if (json.bulk !== undefined) {
    const problem = bulkProblem(json.bulk);
    if (problem) throw new Error(`${path}: .bulk${problem}`);
    // The file holds a password: readable by its owner only, as remoteStoreDir writes it.
    const mode = (await stat(path)).mode & 0o077;
    if (mode && process.platform !== 'win32')
      throw new Error(`${path}: holds the bulk loader's password but others may read it; chmod 600 ${path}`);
  }
  return json as RemoteConfig;
}

function bulkProblem(bulk: unknown): string | undefined {
  if (typeof bulk !== 'object' || bulk === null) return ': expected an object';
  const b = bulk as Record<string, unknown>;
  if (b.engine !== 'virtuoso') return '.engine: expected "virtuoso" (the one bulk loader Weave knows)';
  if (typeof b.isql !== 'string' || !/^[^\s:]+:\d+$/.test(b.isql)) return ".isql: expected HOST:PORT (Virtuoso's SQL port)";
  for (const key of ['user', 'password', 'directory'] as const)
    if (typeof b[key] !== 'string' || !b[key]) return `.${key}: expected a string`;
  for (const key of ['directory', 'serverDirectory'] as const)
    if (b[key] !== undefined && (typeof b[key] !== 'string' || !isAbsolute(b[key] as string) || /['\\]/.test(b[key] as string)))
      return `.${key}: expected an absolute path without quotes or backslashes`;
  if (b.command !== undefined && (typeof b.command !== 'string' || !b.command)) return '.command: expected a program name or path';
  if (b.loaders !== undefined && (!Number.isInteger(b.loaders) || (b.loaders as number) < 1 || (b.loaders as number) > 32))
    return '.loaders: expected a whole number from 1 to 32';
  if (b.batch !== undefined && (!Number.isInteger(b.batch) || (b.batch as number) < 1)) return '.batch: expected a whole number of graphs';
  return undefined;
}
