import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import oxigraph from 'oxigraph';

/**
 * A second SPARQL endpoint for federation tests, standing in for a Soul (ravel's daemon serves
 * its Oxigraph store the same way): an Oxigraph store over a real HTTP socket, speaking the
 * SPARQL 1.1 Protocol (GET, form POST, direct POST) and describing itself on a bare GET. It
 * counts the requests it gets, so a test can prove a refused query never reached it.
 */
export interface TestEndpoint {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export interface EndpointOptions {
  /** Documents served as they are, by path (a Pool file on the web). */
  documents?: Record<string, { file: string; type: string }>;
  /** Answer queries only after this long (a slow endpoint, for timeouts). */
  delayMs?: number;
  /** Serve at /query and refuse a GET without a query (400), as `oxigraph serve` does, rather than describe itself at /sparql. */
  asOxigraphServer?: boolean;
}

export async function startEndpoint(file: string, format: string, options: EndpointOptions = {}): Promise<TestEndpoint> {
  const store = new oxigraph.Store();
  store.load(await readFile(file, 'utf8'), { format });
  let requests = 0;
  const server: Server = createServer(async (req, res) => {
    requests++;
    try {
      const document = options.documents?.[new URL(req.url ?? '/', 'http://localhost').pathname];
      if (document) {
        res.writeHead(200, { 'content-type': document.type });
        res.end(await readFile(document.file));
        return;
      }
      const query = await queryOf(req);
      if (query !== undefined && options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs).unref());
      if (query === undefined && options.asOxigraphServer) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end("You should set the 'query' parameter");
        return;
      }
      if (query === undefined) {
        res.writeHead(200, { 'content-type': 'text/turtle' });
        res.end(
          `@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .\n[] a sd:Service ; sd:endpoint <${endpoint.url}> ; sd:supportedLanguage sd:SPARQL11Query .\n`,
        );
        return;
      }
      const graph = /^\s*(?:PREFIX[^\n]*\n\s*)*(CONSTRUCT|DESCRIBE)\b/i.test(query);
      const type = graph
        ? 'application/n-triples'
        : /sparql-results\+xml/.test(req.headers.accept ?? '') && !/sparql-results\+json/.test(req.headers.accept ?? '')
          ? 'application/sparql-results+xml'
          : 'application/sparql-results+json';
      const text = store.query(query, { results_format: type, use_default_graph_as_union: true }) as string;
      res.writeHead(200, { 'content-type': type });
      res.end(text);
    } catch (e) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end((e as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint: TestEndpoint = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${options.asOxigraphServer ? 'query' : 'sparql'}`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return endpoint;
}

/** The URL of a document an endpoint serves. */
export function documentUrl(endpoint: TestEndpoint, path: string): string {
  return endpoint.url.replace(/\/sparql$/, path);
}

async function queryOf(req: IncomingMessage): Promise<string | undefined> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET') return url.searchParams.get('query') ?? undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  return /x-www-form-urlencoded/.test(req.headers['content-type'] ?? '') ? (new URLSearchParams(body).get('query') ?? undefined) : body;
}

/** An endpoint gone wrong: every request, whatever it asks, is answered by `answer`. */
export async function startRawEndpoint(answer: (res: ServerResponse) => void): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** SPARQL JSON results with one solution whose `s` is a "uri" with a space, which no IRI has. */
export const GARBLED_RESULTS =
  '{"head":{"vars":["s","o"]},"results":{"bindings":[{"s":{"type":"uri","value":"not an iri"},"o":{"type":"literal","value":"x"}}]}}';
