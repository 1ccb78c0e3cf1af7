// @ts-check
/* The compare tab (several engines). */

// ================================================================== compare tab
function buildCompare(sec) {
  const C = DATA.comparison;
  const page = h('div', { class: 'page' });
  sec.append(page);
  page.append(h('h2', { text: `Comparing ${C.names.length} engines (the first is the baseline)` }));
  page.append(plainTable(['', 'label', 'engine', 'path'], engines.map(e => [e.d.letter, e.label(), e.d.name, e.d.path])));
  page.append(h('h2', { text: 'Summary' }));
  page.append(h('div', { class: 'scroll-box' }, frameTable(C.summary)));
  if (C.stages) page.append(stagesSection(C.stages));
  const g = h('div', { class: 'grid2' });
  page.append(h('h2', { text: 'Overview' }), g);
  for (const key of Object.keys(C.figures)) pyFigure(g, C.figures[key]);
  page.append(h('h2', { text: 'Aligned layers' }));
  page.append(h('div', { class: 'scroll-box' }, frameTable(C.links)));
  const A = C.aligned;
  const nRows = A.type.length;
  const bar = h('div', { class: 'toolbar' });
  const search = h('input', { type: 'search', id: 'compare-search', placeholder: 'Search aligned layer names', 'aria-label': 'Search aligned layers' });
  const matchSel = h('select', { id: 'compare-match', 'aria-label': 'Match kind' });
  fillFilter(matchSel, A.match, 'All matches');
  const count = h('span', { class: 'count', id: 'compare-count' });
  append(bar, [search, matchSel, count]);
  const box = h('div', { class: 'table-box' });
  box.append(bar);
  page.append(box);
  /** @type {Column[]} */
  const cols = [
    { key: 'pos', label: '#', width: '52px', num: true, value: p => p, text: p => String(p) },
    { key: 'type', label: 'Type', width: '100px', value: p => A.type[p], text: p => A.type[p] },
    { key: 'match', label: 'Match', width: '100px', value: p => A.match[p], text: p => A.match[p] },
  ];
  C.names.forEach((name, k) => {
    const nameOf = p => A.rows[k][p] == null ? '' : engines[k].L.name[A.rows[k][p]];
    cols.push({ key: 'n' + k, label: `${name} layer`, width: 'minmax(180px, 2fr)', min: '180px', value: p => nameOf(p), text: nameOf, title: nameOf, link: p => A.rows[k][p] != null });
    cols.push({ key: 'ms' + k, label: `${name} ms`, width: '84px', num: true, value: p => A.ms[k][p], text: p => A.rows[k][p] == null ? MISSING : fmtMs(A.ms[k][p]) });
  });
  // a row only one of the first and last engines has: no difference, no speedup ("–", not 0)
  cols.push({ key: 'delta', label: '\u0394 ms', tip: 'last - first (\u2013: the layer is not in both)', width: '84px', num: true, value: p => A.delta[p], text: p => isNum(A.delta[p]) ? fmtMs(A.delta[p]) : MISSING });
  cols.push({ key: 'speedup', label: 'Speedup', tip: 'first / last (\u2013: the layer is not in both)', width: '80px', num: true, value: p => A.speedup[p], text: p => isNum(A.speedup[p]) ? A.speedup[p].toFixed(2) + '\u00d7' : MISSING });
  const table = new VirtualTable(box, {
    columns: cols,
    onClick: (p, col) => {
      let k = col && col[0] === 'n' ? Number(col.slice(1)) : col && col.slice(0, 2) === 'ms' ? Number(col.slice(2)) : app.k;
      if (A.rows[k] == null || A.rows[k][p] == null) k = A.rows.findIndex(r => r[p] != null);
      if (k >= 0) openLayer(k, A.rows[k][p]);
    },
  });
  table.body.id = 'compare-table';
  table.sortKey = 'delta';
  table.sortDir = -1;
  table.updateSortMarks();
  const apply = () => {
    const q = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const items = [];
    for (let p = 0; p < nRows; p++) {
      if (matchSel.value && A.match[p] !== matchSel.value) continue;
      if (q.length) {
        const text = C.names.map((_, k) => A.rows[k][p] == null ? '' : engines[k].L.name[A.rows[k][p]]).join('\n').toLowerCase();
        if (!q.every(t => text.includes(t))) continue;
      }
      items.push(p);
    }
    table.setItems(items);
    count.textContent = `${INT.format(items.length)} of ${INT.format(nRows)} aligned rows`;
  };
  search.addEventListener('input', apply);
  matchSel.addEventListener('change', apply);
  apply();
  page.append(h('p', { class: 'note', text: 'Click a layer name to open it in its engine; the table starts with the largest regressions (last vs first).' }));
  const g2 = h('div', { class: 'grid2' });
  page.append(g2);
  chartCard(g2, 'Aligned layer latencies', () => ({
    // grouped bars; step lines above BAR_LIMIT rows (one path per engine instead of a bar each)
    data: C.names.map((name, k) => {
      const ps = [...Array(nRows).keys()].filter(p => A.rows[k][p] != null);
      const color = COLORS.engines[k % COLORS.engines.length];
      const common = { name: pesc(name), x: ps, y: ps.map(p => A.ms[k][p] || 0), customdata: ps.map(p => [A.rows[k][p], k]),
        hovertext: ps.map(p => pesc(cut(engines[k].L.name[A.rows[k][p]], 120))), hovertemplate: '%{hovertext}<br>%{y:.4g} ms<extra>%{fullData.name}</extra>' };
      return nRows * C.names.length <= BAR_LIMIT ? Object.assign({ type: 'bar', marker: { color } }, common)
        : Object.assign({ type: 'scatter', mode: 'lines', line: { shape: 'hvh', width: 1, color } }, common);
    }),
    layout: { barmode: 'group', xaxis: { title: { text: 'Aligned layer' } }, yaxis: { title: { text: 'Latency (ms)' } }, legend: { orientation: 'h', y: -0.22 } },
  }), { id: 'aligned-latencies', onClick: p => { const c = p.customdata; if (Array.isArray(c)) openLayer(c[1], c[0]); } });
  page.append(h('h2', { text: 'By layer type' }), h('div', { class: 'scroll-box' }, frameTable(C.by_type)));
  page.append(h('h2', { text: 'By precision' }), h('div', { class: 'scroll-box' }, frameTable(C.by_precision)));
  page.append(h('h2', { text: `ONNX nodes (${C.onnx.rows.length})` }));
  if (C.onnx_without_metadata.length) page.append(h('p', { class: 'note', text: `No ONNX node names (Metadata) in: ${C.onnx_without_metadata.join(', ')}.` }));
  if (C.onnx.rows.length) {
    const obox = h('div', { class: 'table-box short' });
    page.append(obox);
    const O = C.onnx;
    const ocols = O.columns.map((c, j) => {
      const numeric = O.rows.every(r => r[j] == null || typeof r[j] === 'number');
      return { key: 'c' + j, label: c, width: j === 0 ? 'minmax(240px, 3fr)' : '110px', min: j === 0 ? '240px' : '110px', num: numeric,
        value: i => O.rows[i][j], text: i => numeric ? fmtNum(O.rows[i][j]) : fmtValue(O.rows[i][j]), title: j === 0 ? i => O.rows[i][0] : null };
    });
    new VirtualTable(obox, { columns: ocols }).setItems([...O.rows.keys()]);
  }
  buildOnnxOps(page, C);
}

// ONNX operators paired across exports whose node names differ (FP16 vs Q/DQ): an unpaired
// operator has no delta or speedup ("–", never 0).
function buildOnnxOps(page, C) {
  const P = C.onnx_ops;
  const first = C.names[0], last = C.names[C.names.length - 1];
  page.append(h('h2', { text: `ONNX operators across exports (${last} vs ${first})` }));
  page.append(h('p', { class: 'note', text: 'Operators paired by name, inside aligned layers, then in graph order; a fused layer\u2019s time goes to its Conv/Gemm/MatMul (its Add/ReLU show 0 ms); speedup = first / last.' }));
  page.append(h('div', { class: 'scroll-box' }, frameTable(C.onnx_op_types)));
  if (!P.rows.length) return;
  const bar = h('div', { class: 'toolbar' });
  const search = h('input', { type: 'search', id: 'onnx-ops-search', placeholder: 'Search operators', 'aria-label': 'Search ONNX operators' });
  const count = h('span', { class: 'count', id: 'onnx-ops-count' });
  append(bar, [search, count]);
  const box = h('div', { class: 'table-box short' });
  box.append(bar);
  page.append(box);
  const ocols = P.columns.map((c, j) => {
    const numeric = P.rows.every(r => r[j] == null || typeof r[j] === 'number');
    const wide = /( node| layer|evidence)$/.test(c);
    return { key: 'c' + j, label: c, width: wide ? 'minmax(160px, 2fr)' : '96px', min: wide ? '160px' : '96px', num: numeric,
      value: i => P.rows[i][j], text: i => numeric ? (P.rows[i][j] == null ? MISSING : fmtNum(P.rows[i][j])) : fmtValue(P.rows[i][j]),
      title: wide ? i => String(P.rows[i][j] ?? '') : null };
  });
  const table = new VirtualTable(box, { columns: ocols });
  table.body.id = 'onnx-ops-table';
  const apply = () => {
    const q = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const items = [...P.rows.keys()].filter(i => !q.length || q.every(t => P.rows[i].join('\n').toLowerCase().includes(t)));
    table.setItems(items);
    count.textContent = `${INT.format(items.length)} of ${INT.format(P.rows.length)} operators`;
  };
  search.addEventListener('input', apply);
  apply();
}

/**
 * Transformer engines side by side (the prefill and decode profiles of one LLM): each stage's
 * shapes, blocks, time and bandwidth; latency per family; each stage's layer-sum gap explained.
 * @param {{table: Frame, families: Frame, gaps: Object<string, any>[]}} S
 */
function stagesSection(S) {
  const box = h('section', { class: 'section', id: 'stages' });
  box.append(h('h2', { text: 'Stages (prefill vs decode)' }));
  box.append(h('div', { class: 'scroll-box', id: 'stages-table' }, frameTable(S.table)));
  box.append(h('h3', { text: 'Latency by family per stage (ms, % of the stage\'s layer sum)' }));
  box.append(h('div', { class: 'scroll-box', id: 'stages-families' }, frameTable(S.families)));
  box.append(h('h3', { text: 'Sum of layers vs measured GPU time, per stage' }));
  const list = h('dl', { class: 'kv', id: 'stages-gaps' });
  for (const g of S.gaps) {
    const why = Array.isArray(g.explanation) ? g.explanation.join('; ') : '';
    list.append(h('dt', { text: String(g.engine) }), h('dd', { text: why || MISSING }));
  }
  box.append(list);
  return box;
}
