// The browser side of the page: YASGUI pointed at this server, the example queries as tabs,
// IRIs opening their describe page, and the ingest progress. No request leaves this origin.
(function () {
  'use strict';
  const config = JSON.parse(document.getElementById('weave-config').textContent);
  const endpoint = new URL(config.endpoint, location.href).href;
  // The UMD build sets window.Yasgui to the class (and window.Yasqe beside it).
  const YasguiClass = typeof window.Yasgui === 'function' ? window.Yasgui : window.Yasgui.default;
  const Yasqe = window.Yasqe || YasguiClass.Yasqe;

  // Yasqe's class and property completion asks lov.linkeddata.es; these ask the ontology here.
  const termCache = {};
  function ontologyTerms(kind) {
    if (!termCache[kind]) {
      const types =
        kind === 'class' ? 'owl:Class rdfs:Class' : 'owl:ObjectProperty owl:DatatypeProperty owl:AnnotationProperty rdf:Property';
      const query = `SELECT DISTINCT ?t WHERE { VALUES ?type { ${types} } ?t a ?type FILTER(isIRI(?t)) } ORDER BY ?t`;
      termCache[kind] = fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/sparql-results+json' },
        body: new URLSearchParams({ query }),
      })
        .then((r) => (r.ok ? r.json() : { results: { bindings: [] } }))
        .then((j) => j.results.bindings.map((b) => b.t.value))
        .catch(() => []);
    }
    return termCache[kind];
  }
  for (const kind of ['class', 'property']) {
    Yasqe.forkAutocompleter(kind, {
      name: `weave-${kind}`,
      get: (_yasqe, token) => ontologyTerms(kind).then((terms) => terms.filter((t) => t.startsWith(token.autocompletionString || ''))),
    });
  }
  const completers = ['variables', 'prefixes', 'weave-class', 'weave-property'];
  Yasqe.defaults.autocompleters = completers;
  YasguiClass.defaults.yasqe.autocompleters = completers;

  /** The prefixes the server predeclares, written out (after any leading comment) so the editor does not flag them. */
  function withPrefixes(query) {
    const missing = Object.entries(config.prefixes).filter(
      ([p]) => new RegExp(`(^|[^\\w:?$])${p}:`).test(query) && !new RegExp(`PREFIX\\s+${p}:`, 'i').test(query),
    );
    const comment = /^(\s*#[^\n]*\n)*/.exec(query)[0];
    return comment + missing.map(([p, ns]) => `PREFIX ${p}: <${ns}>\n`).join('') + query.slice(comment.length);
  }

  const starter = withPrefixes(config.starterQuery);
  const yasgui = new YasguiClass(document.getElementById('yasgui'), {
    requestConfig: {
      endpoint,
      method: 'POST',
      acceptHeaderSelect: 'application/sparql-results+json',
      acceptHeaderGraph: 'text/turtle',
      // YASGUI cannot draw RDF 1.2 triple terms: the server writes them as N-Triples text for it.
      args: [{ name: config.tripleTermsParam, value: 'literal' }],
    },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: () => [{ endpoint }], keys: [] },
    yasqe: { value: starter },
    persistenceId: 'weave',
  });
  // Tabs kept from another visit may name another port; this page only queries its own server.
  for (const id of Object.keys(yasgui._tabs)) {
    const tab = yasgui.getTab(id);
    if (tab && tab.getEndpoint() !== endpoint) tab.setEndpoint(endpoint);
  }
  window.weaveYasgui = yasgui;

  // IRIs in the results table link to their describe page here: urn:soul:… IRIs resolve nowhere
  // else, and YASR's sanitiser drops an href in a scheme it does not know. The link text stays.
  // IRIs and datatypes are abbreviated with the prefixes the server predeclares, besides the
  // query's own: xsd:integer, not <http://www.w3.org/2001/XMLSchema#integer>. Each cell is
  // written here, every value escaped, as YASR's own would be but without a pass of DOMPurify
  // per cell: DataTables draws every row once to size the columns, and an answer of 22,748 rows
  // (queries/stored-texts.rq) took 50 s to show.
  const Table = YasguiClass.Yasr.plugins.table;
  const withDeclared = (prefixes) => Object.assign({}, config.prefixes, prefixes || {});
  // Terminal escapes, C1 controls and direction overrides show as `\x1b`, `\u202e`, as on the
  // server's pages (html.ts escapeHtml, terminal.ts printable): the config names which characters.
  const controls = new RegExp(config.escaped, 'g');
  const visible = (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return c.charCodeAt(0) < 0x100 ? `\\x${hex.slice(2)}` : `\\u${hex}`;
  };
  const escapeText = (text) =>
    String(text)
      .replace(controls, visible)
      .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  Table.prototype.getUriLinkFromBinding = function (binding, prefixes) {
    const all = withDeclared(prefixes);
    const prefix = Object.keys(all).find((p) => binding.value.startsWith(all[p]));
    const shown = prefix === undefined ? binding.value : `${prefix}:${binding.value.slice(all[prefix].length)}`;
    const bare = prefix !== undefined || this.persistentConfig.compact;
    const href = `/describe?iri=${encodeURIComponent(binding.value)}`;
    const link = `<a href="${href}" class="iri" target="_blank" rel="noopener noreferrer">${escapeText(shown)}</a>`;
    const linked = bare ? link : `&lt;${link}&gt;`;
    // A session's node also opens its conversation page.
    const session = /^urn:soul:[^:]+:Weave\/Session\/([^/]+)$/.exec(binding.value);
    if (!session) return linked;
    let id;
    try {
      id = decodeURIComponent(session[1]);
    } catch {
      return linked;
    }
    return `${linked} <a class="conversation-link" href="/conversation/${encodeURIComponent(id)}">conversation</a>`;
  };
  // Numbers, booleans, strings and dates read as themselves; another datatype is named, shortly.
  const XSD = config.prefixes.xsd;
  const PLAIN = new Set(
    ['integer', 'decimal', 'double', 'float', 'boolean', 'string', 'dateTime', 'date', 'long', 'int'].map((t) => XSD + t),
  );
  Table.prototype.formatLiteral = function (binding, prefixes) {
    const value = escapeText(binding.value);
    if (this.persistentConfig.compact) return value;
    if (binding['xml:lang']) return `"${value}"<sup>@${escapeText(binding['xml:lang'])}</sup>`;
    if (!binding.datatype || PLAIN.has(binding.datatype)) return value;
    const all = withDeclared(prefixes);
    const prefix = Object.keys(all).find((p) => binding.datatype.startsWith(all[p]) && binding.datatype.length > all[p].length);
    const name = prefix ? `${prefix}:${binding.datatype.slice(all[prefix].length)}` : `<${binding.datatype}>`;
    return `${value}<sup class="weave-datatype">^^${escapeText(name)}</sup>`;
  };

  // YASR gives DataTables each value for searching and sorting through DOMPurify too, row by row:
  // the escaped text is the same (DataTables decodes search text through innerHTML).
  const columnsOf = Table.prototype.getColumns;
  Table.prototype.getColumns = function () {
    return columnsOf.call(this).map((column, i) => {
      if (i === 0 || typeof column.render !== 'function') return column; // the row number
      const draw = column.render;
      const render = (data, type, row, meta) =>
        data !== '' && (type === 'filter' || type === 'sort') ? escapeText(data.value) : draw(data, type, row, meta);
      return { ...column, render };
    });
  };

  fetch('/examples')
    .then((r) => (r.ok ? r.json() : []))
    .then((examples) => {
      if (!examples.length) return;
      const section = document.getElementById('examples');
      const list = section.querySelector('ul');
      for (const ex of examples) {
        const li = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = ex.title;
        button.title = ex.description || ex.name;
        button.addEventListener('click', () => {
          yasgui.addTab(true, { name: ex.title, yasqe: { value: withPrefixes(ex.query) } }, { avoidDuplicateTabs: true });
        });
        li.appendChild(button);
        list.appendChild(li);
      }
      section.hidden = false;
      // On a first visit the examples are also opened as tabs.
      if (!localStorage.getItem('weave-examples-opened')) {
        localStorage.setItem('weave-examples-opened', '1');
        const firstTab = yasgui.getTab();
        for (const ex of examples.slice(0, 8))
          yasgui.addTab(false, { name: ex.title, yasqe: { value: withPrefixes(ex.query) } }, { avoidDuplicateTabs: true });
        if (firstTab) yasgui.selectTabId(firstTab.getId());
      }
    })
    .catch(() => {});

  const statusEl = document.getElementById('status');
  const liveEl = document.getElementById('live');
  const liveBox = liveEl.querySelector('input');
  // While the server watches its sources, a change to the store runs the open tab's query again
  // (one that has run and is not running), so its answer shows new lines without a reload.
  let seen;
  function runAgain() {
    const tab = yasgui.getTab();
    const yasqe = tab && tab.getYasqe();
    if (!yasqe || !tab.getYasr() || !tab.getYasr().results || (yasqe.isQueryRunning && yasqe.isQueryRunning())) return;
    tab.query();
  }
  const ingestEl = document.getElementById('ingest');
  const noteEl = document.getElementById('note');
  const fmt = (n) => (n === undefined || n === null ? '…' : Number(n).toLocaleString('en'));
  function poll() {
    fetch('/status', { cache: 'no-store' })
      .then((r) => r.json())
      .then((s) => {
        const ing = s.ingest || {};
        const store = s.store || {};
        const archived = store.archivedOnly ? ` (${fmt(store.archivedOnly)} archived-only)` : '';
        const pending = store.pending && store.pending.lines ? ` · ${fmt(store.pending.lines)} lines pending` : '';
        // In UTC, as every other page and command gives a time (the browser's locale wrote 12/7/2026, 9:00:44 AM).
        const last = store.lastChange
          ? ` · last change ${new Date(store.lastChange).toISOString().slice(0, 19).replace('T', ' ')} UTC`
          : '';
        const size = store.bytes
          ? ` · store ${(store.bytes.graphs / 1e6).toFixed(1)} MB, archive ${(store.bytes.archive / 1e6).toFixed(1)} MB`
          : '';
        statusEl.textContent = `${fmt(store.quads)} triples · ${fmt(store.graphs)} graphs · ${fmt(store.sessions)} sessions${archived}${last}${pending}${size} · ${s.workers.ready}/${s.workers.workers} workers`;
        // The ingest's note, or else the store's: built by another Weave (gone once an ingest rebuilds it).
        const note = ing.note || (store.notice && `${store.notice[0].toUpperCase()}${store.notice.slice(1)}.`);
        noteEl.textContent = note || '';
        noteEl.hidden = !note;
        const watching = ing.watching === 'events' || ing.watching === 'polling';
        liveEl.hidden = !watching;
        const now = `${store.quads}|${store.updated}`;
        if (seen !== undefined && now !== seen && watching && liveBox.checked && ing.state !== 'ingesting') runAgain();
        seen = now;
        const p = ing.progress;
        if (ing.state === 'ingesting') {
          ingestEl.hidden = false;
          const done = p ? p.sessionsDone : 0;
          const total = p ? p.sessionsTotal : 0;
          ingestEl.querySelector('.fill').style.width = total ? `${Math.round((100 * done) / total)}%` : '0';
          ingestEl.querySelector('.text').textContent = p
            ? `ingesting: ${fmt(done)} of ${fmt(total)} sessions · ${fmt(p.records)} records · ${(p.bytes / 1e6).toFixed(1)} MB — queries already see the sessions read so far`
            : 'ingesting: finding sessions…';
        } else if (ing.state === 'failed') {
          ingestEl.hidden = false;
          ingestEl.querySelector('.text').textContent = `ingest failed: ${ing.error}`;
        } else ingestEl.hidden = true;
        setTimeout(poll, ing.state === 'ingesting' || !s.workers.ready || watching ? 1000 : 10000);
      })
      .catch(() => {
        statusEl.textContent = 'server not answering';
        setTimeout(poll, 5000);
      });
  }
  poll();
})();
