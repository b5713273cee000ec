// /overview in the browser: charts drawn (Chart.js) from the figures the server wrote into the
// page, and the sessions table filtered and sorted in place. No request leaves this origin.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('overview-data').textContent);
  const Chart = window.Chart;
  // Colours come from the server: the models' one each however many (overview.ts seriesColours),
  // the palette for the other charts' few series.
  const colour = (i) => data.palette[i % data.palette.length];
  const usd = (v) => `$${v >= 1 ? v.toFixed(2) : v.toFixed(4)}`;
  // The cost axis: $0, then dollars to the cent ($0.50, $1.20) or whole ($10, $20), or in cents
  // (0.5¢, 1¢, 1.5¢) where the ticks step by less than a cent; never $0.0000.
  const usdTick = (v, ticks) => {
    if (v === 0) return '$0';
    const step = ticks.length > 1 ? Math.abs(ticks[1].value - ticks[0].value) : Math.abs(v);
    if (step < 0.01) return `${Number((v * 100).toFixed(Math.max(0, Math.ceil(-Math.log10(step * 100) - 1e-9))))}¢`;
    return step >= 1 && Number.isInteger(v) ? `$${v.toLocaleString('en')}` : `$${v.toFixed(2)}`;
  };

  function stacked(id, values, format, tick) {
    const canvas = document.getElementById(id);
    if (!canvas || !Chart || !data.days.length) return;
    new Chart(canvas, {
      type: 'bar',
      data: {
        labels: data.days,
        datasets: data.models.map((model, i) => ({
          label: model,
          data: data.days.map((day) => values[day][model] || 0),
          backgroundColor: data.colours[i],
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, ticks: { callback: (v, _i, ticks) => tick(Number(v), ticks) } } },
        plugins: { tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${format(c.parsed.y)}` } } },
      },
    });
  }
  const count = (v) => v.toLocaleString('en');
  stacked('chart-cost', data.cost, usd, usdTick);
  stacked('chart-tokens', data.tokens, count, count);

  const tools = document.getElementById('chart-tools');
  if (tools && Chart && data.tools.length)
    new Chart(tools, {
      type: 'bar',
      data: {
        labels: data.tools.map((t) => t.name),
        datasets: [
          { label: 'succeeded', data: data.tools.map((t) => t.calls - t.errors), backgroundColor: colour(0) },
          { label: 'failed', data: data.tools.map((t) => t.errors), backgroundColor: '#d14343' },
        ],
      },
      options: {
        animation: false,
        indexAxis: 'y',
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true } },
      },
    });

  const compactions = document.getElementById('chart-compactions');
  if (compactions && Chart && data.compactions.length) {
    const days = [...new Set(data.compactions.map((c) => c.day))];
    const kinds = [...new Set(data.compactions.map((c) => c.kind))];
    new Chart(compactions, {
      type: 'bar',
      data: {
        labels: days,
        datasets: kinds.map((kind, i) => ({
          label: kind,
          data: days.map((day) => data.compactions.filter((c) => c.day === day && c.kind === kind).reduce((n, c) => n + c.count, 0)),
          backgroundColor: colour(i + 2),
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, ticks: { precision: 0 } } },
      },
    });
  }

  // The sessions table: a filter box, and headings that sort (again to reverse).
  const table = document.getElementById('sessions-table');
  const filter = document.getElementById('session-filter');
  if (table && filter) {
    const body = table.tBodies[0];
    filter.addEventListener('input', () => {
      const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      for (const row of body.rows) row.hidden = !words.every((w) => row.textContent.toLowerCase().includes(w));
    });
    table.querySelectorAll('th[data-sort]').forEach((th, column) => {
      th.tabIndex = 0;
      const sort = () => {
        const numeric = th.dataset.sort === 'num';
        const descending = th.getAttribute('aria-sort') !== 'descending';
        for (const h of table.querySelectorAll('th')) h.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        const key = (row) => {
          const v = row.cells[column].dataset.value ?? row.cells[column].textContent;
          return numeric ? Number(v) : v.toLowerCase();
        };
        const rows = [...body.rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (descending ? -1 : 1));
        for (const row of rows) body.appendChild(row);
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') sort();
      });
    });
  }
})();
