import type { Glossary } from '../../../dialect/glossary.ts';
import { definition, plainName } from '../../../model/plain.ts';
import { page, topBar } from './chrome.ts';
import { escapeHtml as e } from './html.ts';

/**
 * /glossary: what `weave glossary` prints (src/cli/glossary.ts), as a page the other pages link
 * their terms to: each model term with its plain name and definition, what the runtime calls it
 * and where it writes it; then what the runtime records that the model does not carry, and what
 * it does not supply.
 */
export function renderGlossaryPage(glossary: Glossary): string {
  const terms = [...glossary.terms].sort((x, y) => (x.model < y.model ? -1 : x.model > y.model ? 1 : 0));
  const rows = terms
    .map(
      (t) =>
        `<tr id="term-${e(encodeURIComponent(t.model))}"><td><code>${e(t.model)}</code></td><td>${e(plainName(t.model) ?? '')}</td><td>${e(definition(t.model) ?? '')}</td><td>${t.runtime === undefined ? '<span class="muted">derived here</span>' : `<code>${e(t.runtime)}</code>`}</td><td>${e(t.runtime === undefined ? '' : (t.where ?? ''))}</td><td>${e(t.note ?? '')}</td></tr>`,
    )
    .join('\n');
  const two = (id: string, head: [string, string], list: [string, string][]) =>
    `<table id="${id}" class="data"><thead><tr><th>${head[0]}</th><th>${head[1]}</th></tr></thead><tbody>${list
      .map(([a, b]) => `<tr><td><code>${e(a)}</code></td><td>${e(b)}</td></tr>`)
      .join('')}</tbody></table>`;
  const body = `${topBar('glossary')}
<main class="glossary">
<h1>Glossary</h1>
<p class="about">The words of the conversation model, in plain words, and what ${e(glossary.label)} calls each (dialect <code>${e(glossary.dialect)}</code>): the table <code>weave glossary</code> prints.</p>
<table id="glossary-terms" class="data"><thead><tr><th>term</th><th>in plain words</th><th>what it means</th><th>${e(glossary.label)} calls it</th><th>where</th><th>note</th></tr></thead>
<tbody>${rows}</tbody></table>
<h2>What ${e(glossary.label)} records that the model does not carry</h2>
${two(
  'not-carried',
  ['field', 'why'],
  glossary.notCarried.map((r) => [r.field, r.why]),
)}
<h2>What ${e(glossary.label)} does not supply at all</h2>
${two(
  'not-supplied',
  ['what', 'why'],
  glossary.notSupplied.map((r) => [r.what, r.why]),
)}
</main>`;
  return page('Glossary', 'glossary', body);
}
