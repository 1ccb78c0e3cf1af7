// @ts-check
/* The "Layers & graph" tab: table, graph and the selected layer's details. */

// ================================================================== selection
function select(row, origin, opts) {
  opts = opts || {};
  app.selected = row;
  const ex = app.explorer;
  if (ex && ex.engine === eng()) ex.show(row, origin, opts);
  writeHash();
}

function openLayer(k, row) {
  if (k !== app.k) switchEngine(k);
  showTab('layers');
  select(row, 'link');
}

// ================================================================== layers & graph tab
class Explorer {
  constructor(section, engine) {
    this.engine = engine;
    const root = h('div', { class: 'explorer' });
    const left = h('div', { class: 'pane', id: 'layer-pane' });
    const mid = h('div', { class: 'pane', id: 'graph-pane' });
    this.detailsBox = h('aside', { class: 'details', id: 'details', 'aria-live': 'polite' });
    const split = h('div', { class: 'splitter', id: 'layer-splitter', role: 'separator', 'aria-orientation': 'vertical', title: 'Drag to give the table or the graph more room' });
    split.addEventListener('pointerdown', ev => this.dragSplit(ev, root, left, split));
    root.append(left, split, mid, this.detailsBox);
    section.append(root);
    this.buildTable(left);
    this.graph = new GraphView(mid, engine, node => this.pickNode(node), (by, key) => this.filterBy(by, key));
    this.showEmptyDetails();
  }

  /** The splitter between the table and the graph: the table takes the width the pointer gives it. */
  dragSplit(ev, root, left, split) {
    const w0 = left.getBoundingClientRect().width;
    dragX(split, ev, dx => {
      const room = root.clientWidth - this.detailsBox.getBoundingClientRect().width - 300;
      const w = Math.round(Math.max(300, Math.min(room, w0 + dx)));
      root.style.gridTemplateColumns = `${w}px 6px minmax(300px, 1fr) ${this.detailsBox.getBoundingClientRect().width}px`;
    });
  }

  buildTable(parent) {
    const e = this.engine;
    const L = e.L;
    const bar = h('div', { class: 'toolbar' });
    this.search = h('input', { type: 'search', id: 'layer-search', placeholder: 'Search names, tactics, ONNX nodes', 'aria-label': 'Search layers' });
    this.typeSel = h('select', { id: 'type-filter', 'aria-label': 'Filter by layer type' });
    this.precSel = h('select', { id: 'precision-filter', 'aria-label': 'Filter by precision' });
    fillFilter(this.typeSel, L.type, 'All types');
    fillFilter(this.precSel, L.precision, 'All precisions', v => precisionText(v, e.d.detailed));
    this.countLabel = h('span', { class: 'count', id: 'layer-count' });
    const reset = h('button', { text: 'Clear', title: 'Clear search and filters', onclick: () => {
      this.search.value = ''; this.typeSel.value = ''; this.precSel.value = ''; this.applyFilter();
    } });
    append(bar, [this.search, this.typeSel, this.precSel, this.countLabel, reset]);
    parent.append(bar);
    // The columns follow their declaration (trex/html_report/layer_columns.py, 35-layer-columns.js):
    // `keep` columns stay in view at any table width (the name narrows for them, whole on hover);
    // the others follow, reached by scrolling sideways.
    this.table = new VirtualTable(parent, {
      columns: layerTableColumns(e),
      empty: 'No layer matches the search and filters.',
      onClick: i => select(i, 'table'),
    });
    this.table.body.id = 'layer-table';
    let timer = 0;
    this.search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => this.applyFilter(), 100); });
    this.typeSel.addEventListener('change', () => this.applyFilter());
    this.precSel.addEventListener('change', () => this.applyFilter());
    this.applyFilter();
  }

  applyFilter() {
    const e = this.engine;
    const t = this.typeSel.value;
    const p = this.precSel.value;
    let rows = [];
    for (let i = 0; i < e.n; i++) {
      if (t && e.L.type[i] !== t) continue;
      if (p && (e.L.precision[i] || 'None') !== p) continue;
      rows.push(i);
    }
    rows = e.search(this.search.value, rows);
    this.table.setItems(rows);
    // the graph dims the layers the filters and search leave out (none when nothing is chosen)
    if (this.graph) this.graph.setFocus(t || p || this.search.value.trim() ? rows : null);
    this.countLabel.textContent = `${INT.format(rows.length)} of ${INT.format(e.n)} layers`;
    this.countLabel.setAttribute('data-count', rows.length);
    this.countLabel.setAttribute('data-query', this.search.value);
  }

  /**
   * A legend entry clicked: the table shows only that type or precision (a second click shows
   * every layer again), and the graph dims the others.
   * @param {string} by 'type' or 'precision' @param {string} key
   */
  filterBy(by, key) {
    const sel = by === 'type' ? this.typeSel : this.precSel;
    const value = by === 'precision' && !key ? 'None' : key;
    sel.value = sel.value === value ? '' : value;
    this.applyFilter();
  }

  pickNode(node) {
    const row = this.engine.d.graph.nodes.row[node];
    if (row >= 0) { select(row, 'graph'); return; }
    app.selected = -1;
    this.table.setSelected(-1);
    this.graph.selectNode(node, false);
    this.renderNodeDetails(node);
  }

  show(row, origin, opts) {
    this.table.setSelected(row, origin !== 'table');
    const node = row >= 0 ? this.graph.nodeOfRow[row] : -1;
    this.graph.selectNode(node, origin !== 'graph' || opts.focus);
    if (row >= 0) this.renderDetails(row); else this.showEmptyDetails();
  }

  showEmptyDetails() {
    clear(this.detailsBox).append(h('div', { class: 'empty', text: 'Click a layer in the table or the graph to see its attributes, tensors, ONNX nodes, tactic and timings.' }));
  }

  renderNodeDetails(node) {
    const N = this.engine.d.graph.nodes;
    const t = N.tensor[String(node)];
    const box = clear(this.detailsBox);
    box.append(h('h3', { class: 'name', text: N.name[node] || '' }));
    box.append(h('div', { class: 'badges' }, [h('span', { class: 'badge', text: ['layer', 'tensor', 'constant', 'sync'][N.kind[node]] || 'node' })]));
    if (t) {
      box.append(kvListFrom([['Tensor', t[0]], ['Shape', JSON.stringify(t[1])], ['Format', t[2]], ['Size', fmtBytes(t[3])]]));
    }
  }

  renderDetails(row) {
    const e = this.engine;
    const L = e.L;
    const [attrs, inputs, outputs] = e.details(row);
    const box = clear(this.detailsBox);
    box.setAttribute('data-row', row);
    box.append(h('h3', { class: 'name', id: 'details-name', text: L.name[row] }));
    const badges = h('div', { class: 'badges' }, [
      h('span', { class: 'badge' }, [swatch(this.typeFill(row)), L.type[row]]),
      L.subtype[row] && L.subtype[row] !== L.type[row] ? h('span', { class: 'badge', text: L.subtype[row] }) : null,
      h('span', { class: 'badge' }, [swatch(colorOf(COLORS.precision, L.precision[row] || 'None')), `${precisionText(L.precision[row], e.d.detailed)} \u2192 ${precisionText(L.out_precision[row], e.d.detailed)}`]),
      L.stream[row] ? h('span', { class: 'badge', text: `stream ${L.stream[row]}` }) : null,
      h('span', { class: 'badge', text: `layer ${row} of ${e.n}` }),
    ]);
    const D = e.detailsJSON();
    const kind = D && D.kinds ? D.kinds[L.type[row]] : null;
    if (kind && kind.family !== 'other') badges.append(h('span', { class: 'badge', id: 'details-family', text: `${kind.family} family` }));
    box.append(badges);
    const facts = D && D.facts ? D.facts[String(row)] : null;
    if ((kind && kind.about) || facts) {
      box.append(h('h4', { text: 'About this layer' }));
      if (kind && kind.about) box.append(h('p', { class: 'note', id: 'details-about', text: `${L.type[row]}: ${kind.about}` }));
      if (facts) box.append(kvListFrom(facts.map(f => [f[0], f[1]])));
    }
    if (!e.d.detailed) box.append(h('p', { class: 'note', text: 'Names-only layer information: no tensors or attributes (build with --profilingVerbosity=detailed).' }));
    box.append(h('div', { class: 'actions' }, [
      h('button', { text: '\u2190 Previous', disabled: row <= 0 ? 'disabled' : null, onclick: () => select(row - 1, 'details', { focus: true }) }),
      h('button', { text: 'Next \u2192', disabled: row >= e.n - 1 ? 'disabled' : null, onclick: () => select(row + 1, 'details', { focus: true }) }),
      h('button', { text: 'Centre in graph', onclick: () => { const nd = this.graph.nodeOfRow[row]; if (nd >= 0) this.graph.center(nd, Math.max(this.graph.s, 0.8)); } }),
    ]));
    const rank = e.slowestRank(row);
    box.append(h('h4', { text: 'Timing' }));
    box.append(kvListFrom([
      ['Average', isNum(L.avg[row]) ? `${fmtMs(L.avg[row])} ms` : 'not profiled'],
      ['Median', isNum(L.median[row]) ? `${fmtMs(L.median[row])} ms` : ''],
      ['Total (profile run)', isNum(L.time[row]) ? `${fmtMs(L.time[row])} ms` : ''],
      ['Share of latency', fmtPct(L.pct[row])],
      ['Rank', rank ? `#${rank} slowest` : ''],
    ]));
    box.append(h('h4', { text: 'Memory' }));
    box.append(kvListFrom([['Weights', fmtBytes(L.weights[row])], ['Activations (I/O)', fmtBytes(L.io[row])], ['Footprint', fmtBytes(L.footprint[row])]]));
    box.append(h('h4', { text: 'Tactic' }));
    box.append(h('div', { class: 'mono', text: L.tactic[row] }));
    if (L.math[row]) box.append(h('div', { class: 'note', text: `Math: ${L.math[row]}` }));
    box.append(h('h4', { text: `ONNX nodes (${L.onnx_source[row] === 'Metadata' ? 'from Metadata' : L.onnx_source[row] === 'name' ? 'from the layer name' : 'none'})` }));
    box.append(L.onnx[row].length ? h('ul', { class: 'tight mono', id: 'details-onnx' }, L.onnx[row].map(n => h('li', { text: n }))) : h('div', { class: 'muted', text: 'No ONNX node listed.' }));
    const tm = e.tensorMap();
    box.append(h('h4', { text: `Inputs (${inputs.length})` }));
    box.append(this.tensorTable(inputs, t => { const p = tm.producer.get(t[0]); return p != null && p !== row ? [p] : []; }, 'from'));
    box.append(h('h4', { text: `Outputs (${outputs.length})` }));
    box.append(this.tensorTable(outputs, t => (tm.consumers.get(t[0]) || []).filter(c => c !== row), 'to'));
    const j = e.roofline(row);
    if (j != null) {
      const R = e.R;
      const op = opUnit(L.precision[row]); // INT8 layers do integer operations: OPs, not FLOPs
      box.append(h('h4', { text: 'Compute (roofline model)' }));
      box.append(kvListFrom([
        ['Model', R.model[j]],
        ['MACs', fmtNum(R.macs[j])],
        ['GEMM M \u00d7 N \u00d7 K', R.M[j] != null ? `${fmtNum(R.M[j])} \u00d7 ${fmtNum(R.N[j])} \u00d7 ${fmtNum(R.K[j])}` : ''],
        [`${op}s`, fmtSI(R.flops[j], op)],
        ['Bytes moved', fmtBytes(R.bytes[j])],
        ['Arithmetic intensity', isNum(R.intensity[j]) ? `${fmtNum(R.intensity[j])} ${op}/B` : ''],
        ['Achieved', isNum(R.tflops[j]) ? `${fmtNum(R.tflops[j])} T${op}/s, ${fmtNum(R.gbps[j])} GB/s` : ''],
        ['Attainable', isNum(R.attainable[j]) ? `${fmtNum(R.attainable[j])} T${op}/s (${R.bound[j]} bound)` : ''],
        ['Of roofline', fmtPct(R.pct_roofline[j])],
      ]));
    }
    const findings = e.findings(row);
    if (findings.length) {
      box.append(h('h4', { text: `Linter findings (${findings.length})` }));
      const ul = h('ul', { class: 'tight' });
      for (const f of findings.map(x => e.lint()[x])) {
        ul.append(h('li', null, [h('span', { class: 'sev ' + f[3], text: f[3] }), ` ${f[2]}: ${f[4]}`, f[5] ? h('div', { class: 'evidence', text: evidenceText(f[5]) }) : null, f[6] ? h('div', { class: 'muted', text: f[6] }) : null]));
      }
      box.append(ul);
    }
    if (engines.length > 1 && DATA.comparison) box.append(this.counterparts(row));
    box.append(h('h4', { text: 'Attributes' }));
    const keys = Object.keys(attrs);
    box.append(keys.length ? plainTable(['attribute', 'value'], keys.map(k => [k, fmtValue(attrs[k])])) : h('div', { class: 'muted', text: 'Names-only layer information: no attributes.' }));
  }

  /** The colour the graph draws a layer in by type. @param {number} row */
  typeFill(row) {
    const node = this.graph.nodeOfRow[row];
    const g = this.engine.d.graph;
    return node >= 0 ? g.palette[g.nodes.fill.type[node]] : colorOf(COLORS.type, this.engine.L.type[row]);
  }

  tensorTable(tensors, neighbours, word) {
    if (!tensors.length) return h('div', { class: 'muted', text: 'none' });
    const list = h('div', { class: 'tensors' });
    for (const t of tensors) {
      const rows = neighbours(t);
      const links = rows.slice(0, 12).map(r => h('button', { class: 'link', text: cut(this.engine.L.name[r], 70), title: this.engine.L.name[r], onclick: () => select(r, 'details', { focus: true }) }));
      list.append(h('div', { class: 'tensor' }, [
        h('div', { class: 'mono', text: t[0] }),
        h('div', { class: 'muted', text: `${JSON.stringify(t[1])} \u00b7 ${t[2]} \u00b7 ${fmtBytes(t[3])}` }),
        links.length ? h('div', { class: 'links' }, [`${word} `, ...links, rows.length > 12 ? ` and ${rows.length - 12} more` : null]) : null,
      ]));
    }
    return list;
  }

  counterparts(row) {
    const C = DATA.comparison;
    const k = this.engine.k;
    const wrap = h('div');
    wrap.append(h('h4', { text: 'In the other engines' }));
    const pos = C.aligned.rows[k].indexOf(row);
    if (pos < 0) { wrap.append(h('div', { class: 'muted', text: 'not aligned' })); return wrap; }
    const ul = h('ul', { class: 'tight' });
    C.names.forEach((name, j) => {
      if (j === k) return;
      const r = C.aligned.rows[j][pos];
      if (r == null) { ul.append(h('li', { text: `${name}: no matching layer` })); return; }
      ul.append(h('li', null, [`${name}: `, h('button', { class: 'link', text: cut(engines[j].L.name[r], 70), title: engines[j].L.name[r], onclick: () => openLayer(j, r) }), ` \u2014 ${fmtMs(C.aligned.ms[j][pos])} ms`]));
    });
    wrap.append(h('div', { class: 'muted', text: `match: ${C.aligned.match[pos]}` }), ul);
    return wrap;
  }
}

/**
 * Label/value rows; a value is text or an element (e.g. a list); empty values are left out.
 * @param {[string, string|Node|null|undefined][]} pairs
 */
function kvListFrom(pairs) {
  const dl = h('dl', { class: 'kv' });
  for (const [k, v] of pairs) {
    if (v === '' || v == null) continue;
    dl.append(h('dt', { text: k }), v instanceof Node ? h('dd', null, v) : h('dd', { text: v }));
  }
  return dl;
}

/**
 * The options of a filter: every value with its count, most frequent first (`label` words a
 * value, e.g. an unknown precision).
 * @param {HTMLSelectElement} sel @param {string[]} values @param {string} allText
 * @param {(v: string) => string} [label]
 */
function fillFilter(sel, values, allText, label) {
  const counts = new Map();
  values.forEach(v => counts.set(v || 'None', (counts.get(v || 'None') || 0) + 1));
  sel.append(h('option', { value: '', text: `${allText} (${values.length})` }));
  [...counts.entries()].sort((a, b) => b[1] - a[1]).forEach(([v, c]) => sel.append(h('option', { value: v, text: `${label ? label(v) : v} (${c})` })));
}
