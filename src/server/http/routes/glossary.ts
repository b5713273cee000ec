import { DIALECTS } from '../../../dialect/index.ts';
import { routePlugin } from '../context.ts';
import { renderGlossaryPage } from '../pages/glossary.ts';
import { STATIC_PAGE_CSP } from './describe.ts';

/** /glossary: the default dialect's glossary, as `weave glossary` prints it, for the pages' terms to link to. */
export default routePlugin('weave-routes-glossary', async (app) => {
  const html = renderGlossaryPage(DIALECTS[0].glossary);
  app.get('/glossary', async (_request, reply) =>
    reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', STATIC_PAGE_CSP).send(html),
  );
});
