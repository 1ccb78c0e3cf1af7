// @ts-check
/* The lint tab: linter findings linked to their layers. */

// ================================================================== lint tab
/** The evidence one pair per line (a cell's hover text). @param {string} raw */
function evidenceLines(raw) {
  const pairs = evidencePairs(raw);
  return pairs ? pairs.map(([k, v]) => `${k}: ${v}`).join('\n') : raw;
}

/** @param {HTMLElement} sec @param {Engine} e */
function buildLint(sec, e) {
  const F = e.d.lint;
  const R = e.lint();
  const evidence = R.map(r => evidenceText(r[5]));
  const page = h('div', { class: 'page' });
  sec.append(page);
  page.append(h('h2', { text: `Linter findings (${R.length})` }));
  if (F.notes.length) page.append(h('ul', { class: 'note' }, F.notes.map(n => h('li', { text: n }))));
  const bar = h('div', { class: 'toolbar' });
  const search = h('input', { type: 'search', id: 'lint-search', placeholder: 'Search findings', 'aria-label': 'Search findings' });
  const sevSel = h('select', { id: 'lint-severity', 'aria-label': 'Severity' });
  fillFilter(sevSel, R.map(r => r[3]), 'All severities');
  const linterSel = h('select', { id: 'lint-linter', 'aria-label': 'Linter' });
  fillFilter(linterSel, R.map(r => r[2]), 'All linters');
  const count = h('span', { class: 'count', id: 'lint-count' });
  append(bar, [search, sevSel, linterSel, count]);
  const box = h('div', { class: 'table-box' });
  box.append(bar);
  page.append(box);
  const table = new VirtualTable(box, {
    columns: [
      { key: 'sev', label: 'Severity', width: '84px', fit: 110, value: j => ['error', 'warning', 'info'].indexOf(R[j][3]), render: j => h('span', { class: 'sev ' + R[j][3], text: R[j][3] }) },
      { key: 'linter', label: 'Linter', width: '130px', value: j => R[j][2], text: j => R[j][2] },
      { key: 'layer', label: 'Layer', width: 'minmax(200px, 2fr)', min: '200px', fit: 420, value: j => R[j][1], text: j => R[j][1], title: j => R[j][1], link: j => R[j][0] != null },
      { key: 'hazard', label: 'Hazard', width: 'minmax(220px, 3fr)', min: '220px', fit: 380, value: j => R[j][4], text: j => R[j][4], title: j => R[j][4] },
      { key: 'evidence', label: 'Evidence', width: 'minmax(200px, 2fr)', min: '200px', fit: 520, text: j => evidence[j], title: j => evidenceLines(R[j][5]) },
      { key: 'mitigation', label: 'Mitigation', width: 'minmax(200px, 2fr)', min: '200px', fit: 520, value: j => R[j][6], text: j => R[j][6], title: j => R[j][6] },
    ],
    empty: R.length ? 'No finding matches.' : 'No finding: the linters found nothing to report.',
    onClick: (j, col) => { if (R[j][0] != null && col !== 'evidence') openLayer(e.k, R[j][0]); },
  });
  table.body.id = 'lint-table';
  const apply = () => {
    const q = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const items = [];
    R.forEach((r, j) => {
      if (sevSel.value && r[3] !== sevSel.value) return;
      if (linterSel.value && r[2] !== linterSel.value) return;
      if (q.length) {
        const text = [r[1], r[2], r[4], r[5], evidence[j], r[6]].join('\n').toLowerCase();
        if (!q.every(t => text.includes(t))) return;
      }
      items.push(j);
    });
    table.setItems(items);
    count.textContent = `${INT.format(items.length)} of ${INT.format(R.length)}`;
  };
  search.addEventListener('input', apply);
  sevSel.addEventListener('change', apply);
  linterSel.addEventListener('change', apply);
  table.sortKey = 'sev';
  table.sortDir = 1;
  table.updateSortMarks();
  apply();
  page.append(h('p', { class: 'note', text: 'Click a finding to open its layer in the table and the graph.' }));
}
