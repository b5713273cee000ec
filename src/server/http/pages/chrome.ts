import { escapeHtml } from './html.ts';

/** The bar on top of every page this server writes: home, the other pages, and the search box. */
export function topBar(here: string, query = ''): string {
  return `<header class="top"><a class="home" href="/">Weave</a><span>${escapeHtml(here)}</span>
<form class="search" action="/search" method="get"><input type="search" name="q" value="${escapeHtml(query)}" placeholder="search turns, tool inputs and results" aria-label="search"></form>
<nav><a href="/">query</a> <a href="/overview">overview</a> <a href="/conversation" title="each session's exchanges, prompts, API calls and tool calls">conversations</a> <a href="/glossary" title="what each term of the conversation model means, in plain words">glossary</a> <a href="/void" title="VoID description of the dataset">VoID</a> <a href="/status">status</a></nav></header>`;
}

/** A link that opens a query in the query page, in a tab of its own. */
export function queryLink(query: string, text = 'the query'): string {
  return `<a class="query-link" href="/#query=${escapeHtml(encodeURIComponent(query))}" title="open this chart's SPARQL in the query page">${escapeHtml(text)}</a>`;
}

export function page(title: string, bodyClass: string, body: string, scripts: string[] = []): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Weave</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/weave.css">
</head><body class="${bodyClass}">
${body}
${scripts.map((s) => `<script src="/assets/${s}"></script>`).join('\n')}
</body></html>
`;
}
