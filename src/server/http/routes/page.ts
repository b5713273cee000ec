import { own } from '../../../own.ts';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { instancePathOf } from '../../../rdf/iri.ts';
import { PREFIXES } from '../../../rdf/vocab.ts';
import { PAGE_ESCAPED } from '../../../terminal.ts';
import { HttpError } from '../../errors.ts';
import { sameToken, TOKEN_COOKIE } from '../auth.ts';
import { routePlugin } from '../context.ts';
import { TRIPLE_TERMS_PARAM } from '../protocol.ts';

/**
 * The browser client at `/`: YASGUI from its npm package (nothing from a CDN), this server's own
 * script and styles, and the example queries of `queries/`, read at each request so a new `.rq`
 * file shows up without a restart.
 */

const require = createRequire(import.meta.url);
/** The page's own files (a folder URL: its trailing slash makes names resolve inside it). */
const PAGE_DIR = new URL('../pages/', import.meta.url);

/** Same-origin only: the page and YASGUI make no call to any other host. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const ASSETS: Record<string, { path: () => string | URL; type: string }> = {
  'yasgui.min.js': { path: () => require.resolve('@zazuko/yasgui/build/yasgui.min.js'), type: 'text/javascript; charset=utf-8' },
  'yasgui.min.css': { path: () => require.resolve('@zazuko/yasgui/build/yasgui.min.css'), type: 'text/css; charset=utf-8' },
  'page.js': { path: () => new URL('page.js', PAGE_DIR), type: 'text/javascript; charset=utf-8' },
  'weave.css': { path: () => new URL('weave.css', PAGE_DIR), type: 'text/css; charset=utf-8' },
  'overview.js': { path: () => new URL('overview.js', PAGE_DIR), type: 'text/javascript; charset=utf-8' },
  // chart.js exports no path to its UMD build: it sits beside the CommonJS entry in dist/.
  'chart.umd.js': { path: () => join(dirname(require.resolve('chart.js')), 'chart.umd.js'), type: 'text/javascript; charset=utf-8' },
};

const STARTER_QUERY = `# Sessions, newest first, with their titles and how many turns each holds
SELECT ?session ?title ?turns ?started
WHERE {
  {
    SELECT ?session (COUNT(DISTINCT ?turn) AS ?turns) (MIN(?time) AS ?started) WHERE {
      ?transcript weave:sessionId ?session ;
                  weave:hasEvent ?node .
      ?node a weave:Turn ;
            weave:timestamp ?time .
      # A turn by its IRI after the soul: a session two machines read into one store counts once.
      BIND(${instancePathOf('?node')} AS ?turn)
    }
    GROUP BY ?session
  }
  OPTIONAL { ?main weave:sessionId ?session ; weave:title ?title FILTER NOT EXISTS { ?main weave:parentTranscript ?parent } }
}
ORDER BY DESC(?started)
LIMIT 50
`;

interface Example {
  name: string;
  title: string;
  description: string;
  query: string;
}

/** The `.rq` files of a folder: the file name is the title (a tab name), the leading comment describes it. */
async function readExamples(dir: string): Promise<Example[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.rq')).sort();
  } catch {
    return [];
  }
  return Promise.all(
    names.map(async (file) => {
      const query = await readFile(join(dir, file), 'utf8');
      const comments: string[] = [];
      for (const line of query.split('\n')) {
        const m = /^\s*#\s?(.*)$/.exec(line);
        if (!m) break;
        comments.push(m[1].trim());
      }
      const name = basename(file, '.rq');
      return { name, title: name.replace(/[-_]+/g, ' '), description: comments.join(' ').trim(), query };
    }),
  );
}

export default routePlugin('weave-routes-page', async (app) => {
  const ctx = app.weave;
  let template: Promise<string> | undefined;
  app.get('/', async (request, reply) => {
    const token = request.searchParams.get('token');
    if (token !== null && ctx.config.token) {
      // A browser shows the token once; the cookie carries it from then on (reads only).
      if (!sameToken(ctx.config.token, token)) throw new HttpError(401, 'that is not the server token');
      return reply
        .header('set-cookie', `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`)
        .code(303)
        .header('location', '/')
        .send();
    }
    template ??= readFile(new URL('index.html', PAGE_DIR), 'utf8');
    const config = {
      endpoint: '/sparql',
      prefixes: PREFIXES,
      starterQuery: STARTER_QUERY,
      tripleTermsParam: TRIPLE_TERMS_PARAM,
      allowUpdate: ctx.config.allowUpdate,
      escaped: PAGE_ESCAPED,
    };
    // `<` escaped so no value can close the script element.
    const json = JSON.stringify(config).replace(/</g, '\\u003c');
    const html = (await template).replace('<!--CONFIG-->', `<script type="application/json" id="weave-config">${json}</script>`);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-cache')
      .send(html);
  });

  const cache = new Map<string, Promise<Buffer>>();
  app.get('/assets/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    const asset = own(ASSETS, name);
    if (!asset) throw new HttpError(404, `no asset ${name}`);
    let body = cache.get(name);
    if (!body) cache.set(name, (body = readFile(asset.path())));
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=3600')
      .send(await body);
  });

  app.get('/examples', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(await readExamples(ctx.config.queriesDir)),
  );
});
