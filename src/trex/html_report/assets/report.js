/* trex report: the page's script.
 *
 * Every view is built from the JSON in #trex-data with DOM calls (createElement, textContent,
 * setAttribute); nothing from the data is ever parsed as HTML, and strings given to plotly are
 * entity-escaped. The layer table draws only its visible rows; the graph draws only what is in
 * view (text labels when zoomed in, one path per colour when zoomed out).
 */
(function () {
  'use strict';

  // ================================================================== helpers
  const SVGNS = 'http://www.w3.org/2000/svg';

  function h(tag, props, children) {
    const e = document.createElement(tag);
    if (props) setProps(e, props);
    if (children != null) append(e, children);
    return e;
  }

  function svgEl(tag, props) {
    const e = document.createElementNS(SVGNS, tag);
    if (props) setProps(e, props);
    return e;
  }

  function setProps(e, props) {
    for (const key of Object.keys(props)) {
      const v = props[key];
      if (v == null || v === false) continue;
      if (key === 'text') e.textContent = String(v);
      else if (key === 'class') e.setAttribute('class', v);
      else if (key === 'title') e.title = String(v);
      else if (key.slice(0, 2) === 'on') e.addEventListener(key.slice(2), v);
      else e.setAttribute(key, String(v));
    }
  }

  function append(e, children) {
    if (!Array.isArray(children)) children = [children];
    for (const c of children) {
      if (c == null || c === false) continue;
      e.append(c instanceof Node ? c : String(c)); // strings become text nodes
    }
    return e;
  }

  function clear(e) { e.replaceChildren(); return e; }

  function readJSON(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  function fmtMs(v) {
    if (!isNum(v)) return '';
    const a = Math.abs(v);
    if (a === 0) return '0';
    if (a >= 100) return v.toFixed(1);
    if (a >= 1) return v.toFixed(3);
    return v.toPrecision(3);
  }

  function fmtPct(v) { return isNum(v) ? v.toFixed(v >= 10 ? 1 : 2) + ' %' : ''; }

  function fmtBytes(b) {
    if (!isNum(b)) return '';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let x = b;
    let i = 0;
    while (Math.abs(x) >= 1024 && i < units.length - 1) { x /= 1024; i++; }
    return (i ? x.toFixed(Math.abs(x) < 10 ? 2 : 1) : String(x)) + ' ' + units[i];
  }

  function fmtNum(v) {
    if (!isNum(v)) return v == null ? '' : String(v);
    if (Number.isInteger(v)) return Math.abs(v) >= 1e15 ? v.toExponential(3) : INT.format(v);
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e9)) return v.toExponential(3);
    return String(Number(v.toPrecision(5)));
  }

  function fmtSI(v, unit) {
    if (!isNum(v)) return '';
    const a = Math.abs(v);
    const steps = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
    for (const [f, p] of steps) if (a >= f) return (v / f).toPrecision(4) + ' ' + p + unit;
    return String(Number(v.toPrecision(4))) + ' ' + unit;
  }

  function fmtValue(v) {
    if (v == null) return '';
    if (typeof v === 'number') return fmtNum(v);
    if (typeof v === 'string') return v;
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    return JSON.stringify(v);
  }

  // plotly renders a small HTML subset inside text: data strings are entity-escaped for it.
  function pesc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function cut(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

  function kvList(obj, skip) {
    const dl = h('dl', { class: 'kv' });
    for (const key of Object.keys(obj || {})) {
      if (skip && skip.includes(key)) continue;
      dl.append(h('dt', { text: key }), h('dd', { text: fmtValue(obj[key]) }));
    }
    return dl;
  }

  function plainTable(columns, rows, opts) {
    opts = opts || {};
    const table = h('table', { class: 'plain' });
    const numeric = columns.map((_, j) => rows.length > 0 && rows.every(r => r[j] == null || typeof r[j] === 'number'));
    const head = h('tr');
    columns.forEach((c, j) => head.append(h('th', { class: numeric[j] ? 'num' : null, text: c })));
    table.append(h('thead', null, head));
    const body = h('tbody');
    for (const r of rows) {
      const tr = h('tr');
      r.forEach((v, j) => {
        const fmt = opts.format && opts.format[columns[j]];
        tr.append(h('td', { class: numeric[j] ? 'num' : null, text: fmt ? fmt(v) : fmtValue(v) }));
      });
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  function frameTable(f, opts) { return plainTable(f.columns, f.rows, opts); }

  function colorOf(map, key) {
    return (key != null && Object.prototype.hasOwnProperty.call(map, key)) ? map[key] : COLORS.unknown;
  }

  function swatch(color) {
    const s = h('span', { class: 'swatch' });
    s.style.background = color;
    return s;
  }

  // ================================================================== data
  const DATA = readJSON('trex-data');
  const COLORS = DATA.colors;
  const LATENCY_COLS = ['avg', 'median', 'time', 'pct'];

  class Engine {
    constructor(k, d) {
      this.k = k;
      this.d = d;
      this.L = d.layers;
      this.n = d.layers.name.length;
      this.index = null;
      this.hay = null;
      this.detailsList = null;
      this.tensors = null;
      this.rooflineRow = null;
      this.lintRows = null;
    }

    label() { return this.d.label || this.d.name; }

    details(row) {
      if (!this.detailsList) this.detailsList = readJSON('trex-details-' + this.k) || [];
      return this.detailsList[row] || [{}, [], []];
    }

    rowOfName(name) {
      if (!this.index) {
        this.index = new Map();
        this.L.name.forEach((n, i) => { if (!this.index.has(n)) this.index.set(n, i); });
      }
      const r = this.index.get(name);
      return r == null ? -1 : r;
    }

    haystack(row) {
      if (!this.hay) {
        const L = this.L;
        this.hay = L.name.map((n, i) => [n, L.type[i], L.tactic[i], L.onnx[i].join('\n')].join('\n').toLowerCase());
      }
      return this.hay[row];
    }

    // Rows whose name, type, tactic or ONNX nodes hold every word of the query.
    search(query, rows) {
      const terms = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
      const out = [];
      const n = rows ? rows.length : this.n;
      for (let j = 0; j < n; j++) {
        const i = rows ? rows[j] : j;
        if (!terms.length) { out.push(i); continue; }
        const text = this.haystack(i);
        if (terms.every(t => text.includes(t))) out.push(i);
      }
      return out;
    }

    // Producer and consumers of every tensor, from the layer details.
    tensorMap() {
      if (!this.tensors) {
        const producer = new Map();
        const consumers = new Map();
        for (let i = 0; i < this.n; i++) {
          const [, ins, outs] = this.details(i);
          for (const t of outs) if (!producer.has(t[0])) producer.set(t[0], i);
          for (const t of ins) {
            if (!consumers.has(t[0])) consumers.set(t[0], []);
            consumers.get(t[0]).push(i);
          }
        }
        this.tensors = { producer, consumers };
      }
      return this.tensors;
    }

    roofline(row) {
      const R = this.d.roofline;
      if (!this.rooflineRow) {
        this.rooflineRow = new Map();
        R.row.forEach((r, j) => this.rooflineRow.set(r, j));
      }
      return this.rooflineRow.get(row);
    }

    findings(row) {
      if (!this.lintRows) {
        this.lintRows = new Map();
        this.d.lint.rows.forEach((f, j) => {
          if (f[0] == null) return;
          if (!this.lintRows.has(f[0])) this.lintRows.set(f[0], []);
          this.lintRows.get(f[0]).push(j);
        });
      }
      return this.lintRows.get(row) || [];
    }

    slowestRank(row) {
      const v = this.L.avg[row];
      if (!isNum(v)) return null;
      let rank = 1;
      for (const x of this.L.avg) if (isNum(x) && x > v) rank++;
      return rank;
    }
  }

  const engines = DATA.engines.map((d, k) => new Engine(k, d));
  const app = {
    k: 0,
    tab: 'overview',
    selected: -1,
    built: {},
    explorer: null,
    hashLock: false,
  };

  function eng() { return engines[app.k]; }

  // ================================================================== virtual table
  // Draws only the rows in view; columns: {key, label, width, num, text(i), value(i), title(i),
  // cls(i), link}. Rows are item ids (layer rows, finding indices, ...).
  class VirtualTable {
    constructor(parent, opts) {
      this.opts = opts;
      this.rowHeight = opts.rowHeight || 26;
      this.columns = opts.columns;
      this.items = [];
      this.view = [];
      this.selected = -1;
      this.sortKey = opts.sortKey || null;
      this.sortDir = opts.sortDir || 1;
      this.template = this.columns.map(c => c.width || '100px').join(' ');
      this.minWidth = this.columns.reduce((s, c) => s + (parseInt(c.min || c.width, 10) || 100), 0);
      this.root = h('div', { class: 'vt' });
      this.body = h('div', { class: 'vt-body', tabindex: '0', role: 'grid' });
      this.head = h('div', { class: 'vt-head', role: 'row' });
      this.canvas = h('div', { class: 'vt-canvas' });
      for (const el of [this.head, this.canvas]) {
        el.style.gridTemplateColumns = this.template;
        el.style.minWidth = this.minWidth + 'px';
      }
      this.canvas.style.display = 'block';
      this.columns.forEach(c => {
        const b = h('button', { class: c.num ? 'num' : null, text: c.label, title: c.tip || c.label, 'data-col': c.key });
        if (c.value) b.addEventListener('click', () => this.sortBy(c.key));
        else b.disabled = true;
        this.head.append(b);
      });
      this.empty = h('div', { class: 'vt-empty', text: opts.empty || 'Nothing to show.' });
      this.body.append(this.head, this.canvas, this.empty);
      this.root.append(this.body);
      parent.append(this.root);
      this.pending = false;
      this.body.addEventListener('scroll', () => this.schedule(), { passive: true });
      this.canvas.addEventListener('click', ev => this.onClick(ev));
      this.body.addEventListener('keydown', ev => this.onKey(ev));
      if (window.ResizeObserver) new ResizeObserver(() => this.schedule()).observe(this.body);
      this.updateSortMarks();
    }

    setItems(items) {
      this.items = items;
      this.applySort();
    }

    applySort() {
      let view = this.items.slice();
      const col = this.columns.find(c => c.key === this.sortKey);
      if (col && col.value) {
        const dir = this.sortDir;
        const vals = new Map();
        for (const i of view) vals.set(i, col.value(i));
        view.sort((a, b) => {
          const x = vals.get(a);
          const y = vals.get(b);
          const xn = x == null || x === '' || (typeof x === 'number' && !isFinite(x));
          const yn = y == null || y === '' || (typeof y === 'number' && !isFinite(y));
          if (xn || yn) return xn === yn ? a - b : (xn ? 1 : -1); // missing values last
          if (x < y) return -dir;
          if (x > y) return dir;
          return a - b;
        });
      }
      this.view = view;
      this.position = null;
      this.canvas.style.height = (view.length * this.rowHeight) + 'px';
      this.empty.style.display = view.length ? 'none' : 'block';
      this.render();
    }

    sortBy(key) {
      if (this.sortKey === key) this.sortDir = -this.sortDir;
      else {
        this.sortKey = key;
        const col = this.columns.find(c => c.key === key);
        this.sortDir = col && col.num ? -1 : 1; // numbers: largest first
      }
      this.updateSortMarks();
      this.applySort();
    }

    updateSortMarks() {
      for (const b of this.head.children) {
        const key = b.getAttribute('data-col');
        const col = this.columns.find(c => c.key === key);
        const mark = key === this.sortKey ? (this.sortDir > 0 ? ' \u25b2' : ' \u25bc') : '';
        b.textContent = col.label + mark;
        b.setAttribute('aria-sort', key === this.sortKey ? (this.sortDir > 0 ? 'ascending' : 'descending') : 'none');
      }
    }

    schedule() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.render(); });
    }

    render() {
      const rh = this.rowHeight;
      const top = this.body.scrollTop;
      const height = this.body.clientHeight || 600;
      const first = Math.max(0, Math.floor(top / rh) - 8);
      const last = Math.min(this.view.length, Math.ceil((top + height) / rh) + 8);
      const frag = document.createDocumentFragment();
      for (let p = first; p < last; p++) {
        const item = this.view[p];
        const row = h('div', { class: 'vt-row' + (item === this.selected ? ' sel' : ''), role: 'row', 'data-item': item, 'data-pos': p });
        row.style.top = (p * rh) + 'px';
        row.style.height = rh + 'px';
        row.style.gridTemplateColumns = this.template;
        for (const c of this.columns) {
          const cell = h('div', { class: 'vt-cell' + (c.num ? ' num' : '') + (c.link && c.link(item) ? ' link' : ''), 'data-col': c.key });
          const content = c.render ? c.render(item) : null;
          if (content) cell.append(content);
          else cell.textContent = c.text(item);
          const tip = c.title ? c.title(item) : null;
          if (tip) cell.title = tip;
          row.append(cell);
        }
        frag.append(row);
      }
      this.canvas.replaceChildren(frag);
    }

    onClick(ev) {
      const row = ev.target.closest('.vt-row');
      if (!row) return;
      const cell = ev.target.closest('.vt-cell');
      const item = Number(row.getAttribute('data-item'));
      if (this.opts.onClick) this.opts.onClick(item, cell ? cell.getAttribute('data-col') : null, ev);
    }

    onKey(ev) {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      if (!this.view.length || !this.opts.onClick) return;
      ev.preventDefault();
      let pos = this.view.indexOf(this.selected);
      pos = ev.key === 'ArrowDown' ? Math.min(this.view.length - 1, pos + 1) : Math.max(0, pos - 1);
      this.opts.onClick(this.view[pos], null, ev);
    }

    setSelected(item, scroll) {
      this.selected = item;
      for (const row of this.canvas.children) {
        row.classList.toggle('sel', Number(row.getAttribute('data-item')) === item);
      }
      if (scroll) this.scrollTo(item);
    }

    scrollTo(item) {
      const pos = this.view.indexOf(item);
      if (pos < 0) return false;
      const rh = this.rowHeight;
      const headH = this.head.offsetHeight || rh;
      const top = this.body.scrollTop;
      const height = this.body.clientHeight - headH;
      if (pos * rh < top || (pos + 1) * rh > top + height) {
        this.body.scrollTop = Math.max(0, pos * rh - height / 2);
      }
      this.render();
      return true;
    }
  }

  // ================================================================== graph view
  const FULL_LOD = 0.38; // scale above which node labels are drawn
  const MAX_FULL_NODES = 2500;

  class GraphView {
    constructor(parent, engine, onPick) {
      this.e = engine;
      this.g = engine.d.graph;
      this.onPick = onPick;
      const N = this.g.nodes;
      this.n = N.x.length;
      this.X = Float64Array.from(N.x);
      this.Y = Float64Array.from(N.y);
      this.W = Float64Array.from(N.w);
      this.H = Float64Array.from(N.h);
      this.nodeOfRow = new Int32Array(engine.n).fill(-1);
      N.row.forEach((r, i) => { if (r >= 0 && this.nodeOfRow[r] < 0) this.nodeOfRow[r] = i; });
      const E = this.g.edges;
      const m = E.src.length;
      this.bbox = new Float64Array(m * 4);
      for (let j = 0; j < m; j++) {
        const p = E.route[j];
        let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
        for (let q = 0; q < p.length; q += 2) {
          x0 = Math.min(x0, p[q]); x1 = Math.max(x1, p[q]);
          y0 = Math.min(y0, p[q + 1]); y1 = Math.max(y1, p[q + 1]);
        }
        this.bbox.set([x0, y0, x1, y1], j * 4);
      }
      this.colorBy = 'type';
      this.s = 1; this.tx = 0; this.ty = 0;
      this.selectedNode = -1;
      this.matches = [];
      this.matchPos = -1;
      this.rendered = null;
      this.build(parent);
    }

    build(parent) {
      const bar = h('div', { class: 'toolbar' });
      this.searchBox = h('input', { type: 'search', placeholder: 'Find in graph (name, type, tactic, ONNX)', 'aria-label': 'Find in graph', id: 'graph-search' });
      this.matchLabel = h('span', { class: 'count', id: 'graph-match-count' });
      const prev = h('button', { text: '\u25b2', title: 'Previous match', onclick: () => this.step(-1) });
      const next = h('button', { text: '\u25bc', title: 'Next match (Enter)', onclick: () => this.step(1) });
      this.colorSel = h('select', { 'aria-label': 'Colour nodes by', id: 'graph-color' });
      for (const [v, t] of [['type', 'Colour: layer type'], ['precision', 'Colour: precision'], ['latency', 'Colour: latency']]) {
        this.colorSel.append(h('option', { value: v, text: t }));
      }
      this.colorSel.addEventListener('change', () => this.setColorBy(this.colorSel.value));
      this.zoomLabel = h('span', { class: 'zoom-label' });
      const zin = h('button', { text: '+', title: 'Zoom in', onclick: () => this.zoomBy(1.4) });
      const zout = h('button', { text: '\u2212', title: 'Zoom out', onclick: () => this.zoomBy(1 / 1.4) });
      const fit = h('button', { text: 'Fit', title: 'Show the whole graph', onclick: () => { this.fit(); } });
      let timer = 0;
      this.searchBox.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => this.find(this.searchBox.value), 120); });
      this.searchBox.addEventListener('keydown', ev => {
        if (ev.key === 'Enter') { ev.preventDefault(); this.find(this.searchBox.value, true); this.step(ev.shiftKey ? -1 : 1); }
      });
      append(bar, [this.searchBox, this.matchLabel, prev, next, this.colorSel, zout, this.zoomLabel, zin, fit]);
      this.stage = h('div', { class: 'graph-stage', id: 'graph-stage' });
      this.svg = svgEl('svg', { role: 'img', 'aria-label': 'Engine graph' });
      this.vp = svgEl('g', { class: 'viewport' });
      this.edgeLayer = svgEl('g', { class: 'edges' });
      this.nodeLayer = svgEl('g', { class: 'nodes' });
      this.overlay = svgEl('g', { class: 'overlay' });
      this.vp.append(this.edgeLayer, this.nodeLayer, this.overlay);
      this.svg.append(this.vp);
      this.legend = h('div', { class: 'graph-legend', id: 'graph-legend' });
      this.mini = h('div', { class: 'minimap', title: 'Overview: click or drag to move' });
      this.miniBase = h('canvas');
      this.miniView = h('canvas');
      this.mini.append(this.miniBase, this.miniView);
      this.stage.append(this.svg, this.legend, this.mini);
      parent.append(bar, this.stage);
      this.bindEvents();
      this.updateLegend();
      if (window.ResizeObserver) {
        let first = true;
        new ResizeObserver(() => {
          if (!this.stage.clientWidth) return;
          if (first) { first = false; this.initialView(); } else this.request(true);
        }).observe(this.stage);
      } else {
        setTimeout(() => this.initialView(), 0);
      }
    }

    size() { return [this.stage.clientWidth || 800, this.stage.clientHeight || 600]; }

    fitScale() {
      const [cw, ch] = this.size();
      return Math.min(cw / Math.max(1, this.g.width), ch / Math.max(1, this.g.height)) * 0.96;
    }

    minScale() { return Math.min(0.05, this.fitScale() * 0.5); }

    initialView() {
      const [cw] = this.size();
      const fs = this.fitScale();
      this.drawMinimap();
      if (fs >= FULL_LOD || this.n === 0) { this.fit(); return; }
      // Too big to read when fitted: start readable at the top of the graph.
      let top = 0;
      for (let i = 1; i < this.n; i++) if (this.Y[i] < this.Y[top]) top = i;
      this.s = 0.75;
      this.tx = cw / 2 - this.X[top] * this.s;
      this.ty = 24 - (this.Y[top] - this.H[top] / 2) * this.s;
      if (this.selectedNode >= 0) { this.center(this.selectedNode, this.s); return; }
      this.request(true);
    }

    fit() {
      const [cw, ch] = this.size();
      const s = Math.min(2, this.fitScale());
      this.s = s;
      this.tx = (cw - this.g.width * s) / 2;
      this.ty = (ch - this.g.height * s) / 2;
      this.request(true);
    }

    zoomBy(f, cx, cy) {
      const [cw, ch] = this.size();
      if (cx == null) { cx = cw / 2; cy = ch / 2; }
      const s = Math.max(this.minScale(), Math.min(4, this.s * f));
      const wx = (cx - this.tx) / this.s;
      const wy = (cy - this.ty) / this.s;
      this.s = s;
      this.tx = cx - wx * s;
      this.ty = cy - wy * s;
      this.request();
    }

    center(node, scale) {
      const [cw, ch] = this.size();
      if (scale) this.s = scale;
      this.tx = cw / 2 - this.X[node] * this.s;
      this.ty = ch / 2 - this.Y[node] * this.s;
      this.request();
    }

    inView(node, margin) {
      const [cw, ch] = this.size();
      const x = this.X[node] * this.s + this.tx;
      const y = this.Y[node] * this.s + this.ty;
      return x > cw * margin && x < cw * (1 - margin) && y > ch * margin && y < ch * (1 - margin);
    }

    bindEvents() {
      let drag = null;
      this.svg.addEventListener('pointerdown', ev => {
        if (ev.button !== 0) return;
        drag = { x: ev.clientX, y: ev.clientY, tx: this.tx, ty: this.ty, moved: false };
        this.svg.setPointerCapture(ev.pointerId);
      });
      this.svg.addEventListener('pointermove', ev => {
        if (!drag) return;
        const dx = ev.clientX - drag.x;
        const dy = ev.clientY - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) < 4) return;
        drag.moved = true;
        this.svg.classList.add('dragging');
        this.tx = drag.tx + dx;
        this.ty = drag.ty + dy;
        this.request();
      });
      const end = ev => {
        if (!drag) return;
        const wasClick = !drag.moved;
        drag = null;
        this.svg.classList.remove('dragging');
        if (wasClick && ev.type === 'pointerup') this.click(ev);
      };
      this.svg.addEventListener('pointerup', end);
      this.svg.addEventListener('pointercancel', end);
      this.svg.addEventListener('wheel', ev => {
        ev.preventDefault();
        const r = this.svg.getBoundingClientRect();
        const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1;
        this.zoomBy(Math.exp(-ev.deltaY * unit * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
      }, { passive: false });
      const miniMove = ev => {
        const r = this.miniBase.getBoundingClientRect();
        const wx = (ev.clientX - r.left) / this.mScale[0];
        const wy = (ev.clientY - r.top) / this.mScale[1];
        const [cw, ch] = this.size();
        this.tx = cw / 2 - wx * this.s;
        this.ty = ch / 2 - wy * this.s;
        this.request();
      };
      let miniDrag = false;
      this.mini.addEventListener('pointerdown', ev => { miniDrag = true; this.mini.setPointerCapture(ev.pointerId); miniMove(ev); });
      this.mini.addEventListener('pointermove', ev => { if (miniDrag) miniMove(ev); });
      this.mini.addEventListener('pointerup', () => { miniDrag = false; });
    }

    hit(wx, wy) {
      const tol = 3 / this.s;
      let best = -1;
      let bestD = Infinity;
      for (let i = 0; i < this.n; i++) {
        const dx = Math.abs(wx - this.X[i]);
        const dy = Math.abs(wy - this.Y[i]);
        if (dx <= this.W[i] / 2 + tol && dy <= this.H[i] / 2 + tol) {
          const d = dx + dy;
          if (d < bestD) { bestD = d; best = i; }
        }
      }
      return best;
    }

    click(ev) {
      const r = this.svg.getBoundingClientRect();
      const wx = (ev.clientX - r.left - this.tx) / this.s;
      const wy = (ev.clientY - r.top - this.ty) / this.s;
      const node = this.hit(wx, wy);
      if (node >= 0) this.onPick(node);
    }

    request(force) {
      if (force) this.rendered = null;
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.update(); });
    }

    fills() { return this.g.nodes.fill[this.colorBy]; }

    update() {
      const [cw, ch] = this.size();
      this.vp.setAttribute('transform', `translate(${this.tx.toFixed(2)},${this.ty.toFixed(2)}) scale(${this.s.toFixed(5)})`);
      this.zoomLabel.textContent = Math.round(this.s * 100) + '%';
      const vx0 = -this.tx / this.s;
      const vy0 = -this.ty / this.s;
      const vx1 = (cw - this.tx) / this.s;
      const vy1 = (ch - this.ty) / this.s;
      const lod = this.s >= FULL_LOD ? 'full' : 'box';
      const R = this.rendered;
      if (!R || R.lod !== lod || vx0 < R.x0 || vy0 < R.y0 || vx1 > R.x1 || vy1 > R.y1) {
        const mx = (vx1 - vx0) * 0.5;
        const my = (vy1 - vy0) * 0.5;
        this.draw(vx0 - mx, vy0 - my, vx1 + mx, vy1 + my, lod);
      }
      this.drawViewport(vx0, vy0, vx1, vy1);
    }

    draw(x0, y0, x1, y1, lod) {
      const N = this.g.nodes;
      const E = this.g.edges;
      const pal = this.g.palette;
      const visible = [];
      for (let i = 0; i < this.n; i++) {
        const hw = this.W[i] / 2;
        const hh = this.H[i] / 2;
        if (this.X[i] + hw >= x0 && this.X[i] - hw <= x1 && this.Y[i] + hh >= y0 && this.Y[i] - hh <= y1) visible.push(i);
      }
      if (lod === 'full' && visible.length > MAX_FULL_NODES) lod = 'box';
      this.rendered = { x0, y0, x1, y1, lod };
      // Edges: one path per colour and dash style, arrow heads in one path per colour.
      const groups = new Map();
      const m = E.src.length;
      for (let j = 0; j < m; j++) {
        const b = j * 4;
        if (this.bbox[b + 2] < x0 || this.bbox[b] > x1 || this.bbox[b + 3] < y0 || this.bbox[b + 1] > y1) continue;
        const p = E.route[j];
        if (p.length < 4) continue;
        const key = E.color[j] * 2 + E.dash[j];
        let g = groups.get(key);
        if (!g) { g = { d: [], a: [], color: pal[E.color[j]], dash: E.dash[j] }; groups.set(key, g); }
        g.d.push(routePath(p));
        if (lod === 'full') g.a.push(arrowPath(p));
      }
      const edgeFrag = document.createDocumentFragment();
      for (const g of groups.values()) {
        edgeFrag.append(svgEl('path', { class: 'edge', d: g.d.join(''), stroke: g.color, 'stroke-dasharray': g.dash ? '5,4' : null }));
        if (g.a.length) edgeFrag.append(svgEl('path', { class: 'arrow', d: g.a.join(''), fill: g.color }));
      }
      this.edgeLayer.replaceChildren(edgeFrag);
      const fills = this.fills();
      const nodeFrag = document.createDocumentFragment();
      if (lod === 'full') {
        for (const i of visible) nodeFrag.append(this.nodeElement(i, pal[fills[i]], this.g.ink[fills[i]]));
      } else {
        const byFill = new Map();
        for (const i of visible) {
          const f = fills[i];
          if (!byFill.has(f)) byFill.set(f, []);
          const l = this.X[i] - this.W[i] / 2;
          const t = this.Y[i] - this.H[i] / 2;
          byFill.get(f).push(`M${l.toFixed(1)},${t.toFixed(1)}h${this.W[i]}v${this.H[i]}h${-this.W[i]}z`);
        }
        for (const [f, parts] of byFill) {
          nodeFrag.append(svgEl('path', { d: parts.join(''), fill: pal[f], stroke: '#888', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' }));
        }
      }
      this.nodeLayer.replaceChildren(nodeFrag);
      this.nodeLayer.setAttribute('data-lod', lod);
      this.nodeLayer.setAttribute('data-count', String(visible.length));
      void N;
    }

    nodeElement(i, fill, ink) {
      const N = this.g.nodes;
      const w = this.W[i];
      const hgt = this.H[i];
      const left = this.X[i] - w / 2;
      const top = this.Y[i] - hgt / 2;
      const g = svgEl('g', { 'data-node': i });
      const kind = N.kind[i];
      g.append(svgEl('rect', {
        x: left.toFixed(1), y: top.toFixed(1), width: w, height: hgt, rx: kind === 0 ? 8 : 0,
        fill, stroke: this.g.palette[N.stroke[i]], 'stroke-width': N.pen[i],
        'stroke-dasharray': kind === 1 && fill === 'white' ? '6,4' : null,
      }));
      const rows = N.rows[i];
      const seps = [];
      rows.forEach((text, r) => {
        const rowTop = top + r * 18;
        if (r && kind !== 1) seps.push(`M${left.toFixed(1)},${rowTop.toFixed(1)}h${w}`);
        g.append(svgEl('text', {
          x: this.X[i].toFixed(1), y: (rowTop + 13).toFixed(1), 'text-anchor': 'middle', fill: ink,
          'font-weight': r === 0 && kind !== 1 ? 'bold' : null, text,
        }));
      });
      if (seps.length) g.append(svgEl('path', { class: 'sep', d: seps.join('') }));
      return g;
    }

    drawOverlay() {
      const frag = document.createDocumentFragment();
      const box = (i, pad) => {
        const l = this.X[i] - this.W[i] / 2 - pad;
        const t = this.Y[i] - this.H[i] / 2 - pad;
        return `M${l.toFixed(1)},${t.toFixed(1)}h${this.W[i] + 2 * pad}v${this.H[i] + 2 * pad}h${-this.W[i] - 2 * pad}z`;
      };
      if (this.matches.length) {
        frag.append(svgEl('path', { class: 'match', d: this.matches.map(i => box(i, 3)).join('') }));
      }
      const sel = this.selectedNode;
      if (sel >= 0) {
        const E = this.g.edges;
        const parts = [];
        for (let j = 0; j < E.src.length; j++) {
          if ((E.src[j] === sel || E.dst[j] === sel) && E.route[j].length >= 4) parts.push(routePath(E.route[j]));
        }
        if (parts.length) frag.append(svgEl('path', { class: 'halo-edge', d: parts.join('') }));
        const row = this.g.nodes.row[sel];
        frag.append(svgEl('path', { class: 'halo', id: 'graph-selection', 'data-node': sel, 'data-layer': row, d: box(sel, 5) }));
      }
      this.overlay.replaceChildren(frag);
    }

    drawMinimap() {
      const W = Math.max(1, this.g.width);
      const H = Math.max(1, this.g.height);
      // Uniform scale, except that a very tall or wide graph keeps a usable width or height.
      const m = Math.min(200 / W, 260 / H);
      const mx = Math.max(m, Math.min(40 / W, 1));
      const my = Math.max(m, Math.min(40 / H, 1));
      this.mScale = [mx, my];
      const w = Math.max(8, Math.ceil(W * mx));
      const hgt = Math.max(8, Math.ceil(H * my));
      for (const c of [this.miniBase, this.miniView]) { c.width = w; c.height = hgt; }
      const ctx = this.miniBase.getContext('2d');
      ctx.clearRect(0, 0, w, hgt);
      const fills = this.fills();
      const pal = this.g.palette;
      for (let i = 0; i < this.n; i++) {
        ctx.fillStyle = pal[fills[i]];
        ctx.fillRect((this.X[i] - this.W[i] / 2) * mx, (this.Y[i] - this.H[i] / 2) * my,
          Math.max(1, this.W[i] * mx), Math.max(1, this.H[i] * my));
      }
      this.drawMiniMarks();
    }

    drawMiniMarks() {
      this.miniMarks = [...this.matches];
      if (this.selectedNode >= 0) this.miniMarks.push(this.selectedNode);
      if (this.lastView) this.drawViewport(...this.lastView);
    }

    drawViewport(x0, y0, x1, y1) {
      this.lastView = [x0, y0, x1, y1];
      const [mx, my] = this.mScale || [1, 1];
      const ctx = this.miniView.getContext('2d');
      ctx.clearRect(0, 0, this.miniView.width, this.miniView.height);
      for (const i of (this.miniMarks || [])) {
        ctx.fillStyle = i === this.selectedNode ? '#0b5fff' : '#ff8a00';
        ctx.fillRect(this.X[i] * mx - 2, this.Y[i] * my - 2, 5, 5);
      }
      ctx.strokeStyle = '#0b5fff';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(x0 * mx, y0 * my, Math.max(2, (x1 - x0) * mx), Math.max(2, (y1 - y0) * my));
    }

    setColorBy(mode) {
      this.colorBy = mode;
      this.colorSel.value = mode;
      this.updateLegend();
      this.drawMinimap();
      this.request(true);
    }

    updateLegend() {
      const L = this.e.L;
      clear(this.legend);
      const toggle = h('button', { class: 'link legend-toggle', text: this.legendHidden ? 'Legend \u25b8' : 'Legend \u25be', title: 'Show or hide the legend' });
      toggle.addEventListener('click', () => { this.legendHidden = !this.legendHidden; this.updateLegend(); });
      this.legend.append(toggle);
      if (this.legendHidden) return;
      if (this.colorBy === 'latency') {
        const grad = h('div', { class: 'grad' });
        grad.style.background = `linear-gradient(to right, ${COLORS.latency.join(',')})`;
        const max = Math.max(0, ...L.avg.filter(isNum));
        append(this.legend, [h('div', { text: 'Latency (square-root scale)' }), grad,
          h('div', { class: 'muted', text: `0 \u2192 ${fmtMs(max)} ms` })]);
        return;
      }
      const key = this.colorBy === 'type' ? L.type : L.precision;
      const map = this.colorBy === 'type' ? COLORS.type : COLORS.precision;
      const counts = new Map();
      key.forEach(k => counts.set(k || 'None', (counts.get(k || 'None') || 0) + 1));
      [...counts.entries()].sort((a, b) => b[1] - a[1]).forEach(([k, c]) => {
        this.legend.append(h('div', null, [swatch(colorOf(map, k)), `${k} (${c})`]));
      });
    }

    find(query, keep) {
      const q = String(query || '').trim();
      if (keep && q === this.lastQuery) return;
      this.lastQuery = q;
      const rows = q ? this.e.search(q) : [];
      this.matches = rows.map(r => this.nodeOfRow[r]).filter(i => i >= 0);
      this.matchPos = -1;
      this.matchLabel.textContent = q ? `${this.matches.length} found` : '';
      this.drawOverlay();
      this.drawMiniMarks();
    }

    step(dir) {
      if (!this.matches.length) return;
      this.matchPos = (this.matchPos + dir + this.matches.length) % this.matches.length;
      const node = this.matches[this.matchPos];
      this.matchLabel.textContent = `${this.matchPos + 1} of ${this.matches.length}`;
      this.onPick(node);
    }

    selectNode(node, focus) {
      this.selectedNode = node;
      this.drawOverlay();
      this.drawMiniMarks();
      if (node >= 0 && focus && !(this.s >= FULL_LOD && this.inView(node, 0.08))) {
        this.center(node, Math.max(this.s, 0.8));
      }
    }
  }

  function routePath(p) {
    let d = `M${p[0]},${p[1]}`;
    for (let q = 2; q < p.length; q += 2) {
      const x0 = p[q - 2], y0 = p[q - 1], x1 = p[q], y1 = p[q + 1];
      const my = ((y0 + y1) / 2).toFixed(1);
      d += `C${x0},${my} ${x1},${my} ${x1},${y1}`;
    }
    return d;
  }

  function arrowPath(p) {
    const n = p.length;
    const x1 = p[n - 2], y1 = p[n - 1];
    // The curve ends vertically (its last control point is straight above the end).
    const up = p[n - 3] <= y1 ? -1 : 1;
    const len = 7;
    return `M${x1},${y1}l${-len / 2},${(up * len).toFixed(1)}h${len}z`;
  }

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
      root.append(left, mid, this.detailsBox);
      section.append(root);
      this.buildTable(left);
      this.graph = new GraphView(mid, engine, node => this.pickNode(node));
      this.showEmptyDetails();
    }

    buildTable(parent) {
      const e = this.engine;
      const L = e.L;
      const bar = h('div', { class: 'toolbar' });
      this.search = h('input', { type: 'search', id: 'layer-search', placeholder: 'Search names, tactics, ONNX nodes', 'aria-label': 'Search layers' });
      this.typeSel = h('select', { id: 'type-filter', 'aria-label': 'Filter by layer type' });
      this.precSel = h('select', { id: 'precision-filter', 'aria-label': 'Filter by precision' });
      fillFilter(this.typeSel, L.type, 'All types');
      fillFilter(this.precSel, L.precision, 'All precisions');
      this.countLabel = h('span', { class: 'count', id: 'layer-count' });
      const reset = h('button', { text: 'Clear', title: 'Clear search and filters', onclick: () => {
        this.search.value = ''; this.typeSel.value = ''; this.precSel.value = ''; this.applyFilter();
      } });
      append(bar, [this.search, this.typeSel, this.precSel, this.countLabel, reset]);
      parent.append(bar);
      const mono = i => L.tactic[i];
      this.table = new VirtualTable(parent, {
        columns: [
          { key: 'idx', label: '#', width: '52px', num: true, value: i => i, text: i => String(i) },
          { key: 'name', label: 'Name', width: 'minmax(240px, 3fr)', min: '240px', value: i => L.name[i].toLowerCase(), text: i => L.name[i], title: i => L.name[i] },
          { key: 'type', label: 'Type', width: '110px', value: i => L.type[i], text: i => L.type[i], title: i => L.subtype[i] ? `${L.type[i]} (${L.subtype[i]})` : L.type[i] },
          { key: 'precision', label: 'Precision', width: '84px', value: i => L.precision[i], text: i => L.precision[i], title: i => `in ${L.precision[i]} \u2192 out ${L.out_precision[i]}` },
          { key: 'avg', label: 'Latency ms', tip: 'Average latency (ms)', width: '92px', num: true, value: i => L.avg[i], text: i => fmtMs(L.avg[i]) },
          { key: 'pct', label: '%', tip: 'Share of the engine latency', width: '64px', num: true, value: i => L.pct[i], text: i => isNum(L.pct[i]) ? L.pct[i].toFixed(2) : '' },
          { key: 'weights', label: 'Weights', width: '82px', num: true, value: i => L.weights[i], text: i => fmtBytes(L.weights[i]) },
          { key: 'io', label: 'Activations', tip: 'Input + output tensor bytes', width: '92px', num: true, value: i => L.io[i], text: i => fmtBytes(L.io[i]) },
          { key: 'tactic', label: 'Tactic', width: 'minmax(160px, 2fr)', min: '160px', value: mono, text: mono, title: mono },
          { key: 'onnx', label: 'ONNX nodes', width: 'minmax(160px, 2fr)', min: '160px', value: i => L.onnx[i].join(', '), text: i => L.onnx[i].join(', '), title: i => L.onnx[i].join('\n') },
        ],
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
      this.countLabel.textContent = `${INT.format(rows.length)} of ${INT.format(e.n)} layers`;
      this.countLabel.setAttribute('data-count', rows.length);
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
        h('span', { class: 'badge' }, [swatch(colorOf(COLORS.type, L.type[row])), L.type[row]]),
        L.subtype[row] && L.subtype[row] !== L.type[row] ? h('span', { class: 'badge', text: L.subtype[row] }) : null,
        h('span', { class: 'badge' }, [swatch(colorOf(COLORS.precision, L.precision[row])), `${L.precision[row] || 'None'} \u2192 ${L.out_precision[row] || 'None'}`]),
        L.stream[row] ? h('span', { class: 'badge', text: `stream ${L.stream[row]}` }) : null,
        h('span', { class: 'badge', text: `layer ${row} of ${e.n}` }),
      ]);
      box.append(badges);
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
      box.append(h('h4', { text: `ONNX nodes (${L.onnx_source[row] === 'Metadata' ? 'from Metadata' : L.onnx_source[row] === 'name' ? 'from the layer name' : 'none'})` }));
      box.append(L.onnx[row].length ? h('ul', { class: 'tight mono', id: 'details-onnx' }, L.onnx[row].map(n => h('li', { text: n }))) : h('div', { class: 'muted', text: 'No ONNX node listed.' }));
      const tm = e.tensorMap();
      box.append(h('h4', { text: `Inputs (${inputs.length})` }));
      box.append(this.tensorTable(inputs, t => { const p = tm.producer.get(t[0]); return p != null && p !== row ? [p] : []; }, 'from'));
      box.append(h('h4', { text: `Outputs (${outputs.length})` }));
      box.append(this.tensorTable(outputs, t => (tm.consumers.get(t[0]) || []).filter(c => c !== row), 'to'));
      const j = e.roofline(row);
      if (j != null) {
        const R = e.d.roofline;
        box.append(h('h4', { text: 'Compute (roofline model)' }));
        box.append(kvListFrom([
          ['Model', R.model[j]],
          ['MACs', fmtNum(R.macs[j])],
          ['GEMM M \u00d7 N \u00d7 K', R.M[j] != null ? `${fmtNum(R.M[j])} \u00d7 ${fmtNum(R.N[j])} \u00d7 ${fmtNum(R.K[j])}` : ''],
          ['FLOPs', fmtSI(R.flops[j], 'FLOP')],
          ['Bytes moved', fmtBytes(R.bytes[j])],
          ['Arithmetic intensity', isNum(R.intensity[j]) ? `${fmtNum(R.intensity[j])} FLOP/B` : ''],
          ['Achieved', isNum(R.tflops[j]) ? `${fmtNum(R.tflops[j])} TFLOP/s, ${fmtNum(R.gbps[j])} GB/s` : ''],
          ['Attainable', isNum(R.attainable[j]) ? `${fmtNum(R.attainable[j])} TFLOP/s (${R.bound[j]} bound)` : ''],
          ['Of roofline', fmtPct(R.pct_roofline[j])],
        ]));
      }
      const findings = e.findings(row);
      if (findings.length) {
        box.append(h('h4', { text: `Linter findings (${findings.length})` }));
        const ul = h('ul', { class: 'tight' });
        for (const f of findings.map(x => e.d.lint.rows[x])) {
          ul.append(h('li', null, [h('span', { class: 'sev ' + f[3], text: f[3] }), ` ${f[2]}: ${f[4]}`, f[6] ? h('div', { class: 'muted', text: f[6] }) : null]));
        }
        box.append(ul);
      }
      if (engines.length > 1 && DATA.comparison) box.append(this.counterparts(row));
      box.append(h('h4', { text: 'Attributes' }));
      const keys = Object.keys(attrs);
      box.append(keys.length ? plainTable(['attribute', 'value'], keys.map(k => [k, fmtValue(attrs[k])])) : h('div', { class: 'muted', text: 'Names-only layer information: no attributes.' }));
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

  function kvListFrom(pairs) {
    const dl = h('dl', { class: 'kv' });
    for (const [k, v] of pairs) {
      if (v === '' || v == null) continue;
      dl.append(h('dt', { text: k }), h('dd', { text: v }));
    }
    return dl;
  }

  function fillFilter(sel, values, allText) {
    const counts = new Map();
    values.forEach(v => counts.set(v || 'None', (counts.get(v || 'None') || 0) + 1));
    sel.append(h('option', { value: '', text: `${allText} (${values.length})` }));
    [...counts.entries()].sort((a, b) => b[1] - a[1]).forEach(([v, c]) => sel.append(h('option', { value: v, text: `${v} (${c})` })));
  }

  // ================================================================== charts
  const PLOT_CONFIG = { displaylogo: false, responsive: true, scrollZoom: false, modeBarButtonsToRemove: ['sendDataToCloud', 'lasso2d', 'select2d'] };
  const BASE_LAYOUT = {
    margin: { l: 60, r: 20, t: 32, b: 50 }, autosize: true,
    paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)',
    font: { family: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif', size: 12 },
    hoverlabel: { namelength: -1 },
  };
  // plotly.js is inlined as text and run when the first chart is drawn (after the first paint):
  // parsing its 5 MB takes over a second, which the table and the graph need not wait for. The
  // page's Content-Security-Policy lets it run by its hash.
  let plotlyState = 0;
  const plotlyWaiters = [];
  function withPlotly(fn) {
    if (window.Plotly || plotlyState === 2) { fn(); return; }
    plotlyWaiters.push(fn);
    if (plotlyState) return;
    plotlyState = 1;
    setTimeout(() => {
      const source = document.getElementById('trex-plotly');
      if (source) {
        const run = document.createElement('script');
        run.id = 'trex-plotly-run';
        run.textContent = source.textContent;
        document.body.append(run); // an inline script runs when inserted
      }
      plotlyState = 2;
      for (const f of plotlyWaiters.splice(0)) f();
    }, 30);
  }

  // Charts are drawn when they come near the visible part of their tab (its scroll container).
  const observers = new Map();
  function whenVisible(el) {
    const root = el.closest('.tab');
    if (!('IntersectionObserver' in window) || !root) { el.trexDraw(); return; }
    let observer = observers.get(root);
    if (!observer) {
      observer = new IntersectionObserver(entries => {
        for (const entry of entries) {
          if (entry.isIntersecting) { observer.unobserve(entry.target); entry.target.trexDraw(); }
        }
      }, { root, rootMargin: '300px 0px' });
      observers.set(root, observer);
    }
    observer.observe(el);
  }

  // A chart card: the figure is built and drawn when the card first comes into view.
  function chartCard(parent, title, build, opts) {
    opts = opts || {};
    const card = h('div', { class: 'chart-card' + (opts.wide ? ' wide' : ''), 'data-chart': opts.id || title });
    const head = h('div', { class: 'chart-head' }, [h('h3', { text: title })]);
    if (opts.controls) append(head, opts.controls);
    const body = h('div', { class: 'chart' + (opts.tall ? ' tall' : '') });
    body.append(h('div', { class: 'placeholder', text: 'Drawing\u2026' }));
    card.append(head, body);
    if (opts.note) card.append(h('div', { class: 'note', text: opts.note }));
    parent.append(card);
    let drawn = false;
    const draw = () => withPlotly(() => {
      drawn = true;
      if (!window.Plotly) { clear(body).append(h('div', { class: 'placeholder', text: 'plotly.js did not load.' })); return; }
      let fig;
      try { fig = build(); } catch (err) {
        console.warn('trex report: chart failed', title, err);
        clear(body).append(h('div', { class: 'error-box', text: `This chart could not be drawn: ${err && err.message}` }));
        return;
      }
      if (!fig) { clear(body).append(h('div', { class: 'placeholder', text: opts.none || 'No data for this chart.' })); return; }
      clear(body);
      const layout = Object.assign({}, BASE_LAYOUT, fig.layout || {});
      if (layout.yaxis2) layout.legend = Object.assign({}, layout.legend, { orientation: 'h', x: 0, y: -0.25 });
      layout.margin = Object.assign({}, BASE_LAYOUT.margin, (fig.layout || {}).margin || {});
      layout.margin.t = Math.max(32, Math.min(layout.margin.t || 32, 60)); // room for the mode bar
      for (const key of ['xaxis', 'yaxis', ...Object.keys(layout).filter(k => /^[xy]axis\d+$/.test(k))]) {
        layout[key] = Object.assign({ automargin: true }, layout[key] || {});
      }
      if (Array.isArray(layout.annotations)) {
        layout.annotations = layout.annotations.map(a => Object.assign({}, a, { font: Object.assign({ size: 12 }, a.font || {}) }));
      }
      window.Plotly.newPlot(body, fig.data, layout, PLOT_CONFIG).then(() => {
        body.setAttribute('data-drawn', '1');
        if (opts.onClick) body.on('plotly_click', ev => { const p = ev.points && ev.points[0]; if (p) opts.onClick(p); });
      });
    });
    body.trexDraw = draw;
    card.redraw = () => { if (drawn) draw(); };
    whenVisible(body);
    return card;
  }

  function pyFigure(parent, fig, opts) {
    if (!fig) return null;
    if (fig.error) {
      const card = h('div', { class: 'chart-card' }, [h('h3', { text: fig.title }), h('div', { class: 'error-box', text: `Not available: ${fig.error}` })]);
      parent.append(card);
      return card;
    }
    const pies = (fig.figure.data || []).filter(t => t.type === 'pie').length;
    return chartCard(parent, fig.title, () => fig.figure, Object.assign({ wide: pies >= 3 }, opts || {}));
  }

  function pickLayer(k) {
    return p => {
      const row = Array.isArray(p.customdata) ? p.customdata[0] : p.customdata;
      if (isNum(row)) openLayer(k, row);
    };
  }

  // Per-layer values as one trace per group: bars for small engines; above BAR_LIMIT layers a
  // filled step outline (one path per group instead of one element per bar, same picture).
  const BAR_LIMIT = 1500;

  function layerTraces(e, groups, value, hover) {
    const L = e.L;
    const names = [];
    for (let i = 0; i < e.n; i++) names.push(pesc(cut(L.name[i], 120)));
    const total = groups.reduce((s, g) => s + g.rows.length, 0);
    const template = '%{hovertext}<br>layer %{customdata}<br>' + hover + '<extra>%{fullData.name}</extra>';
    if (total <= BAR_LIMIT) {
      return groups.map(g => ({
        type: 'bar', name: pesc(g.name), x: g.rows, y: g.rows.map(value), customdata: g.rows,
        hovertext: g.rows.map(i => names[i]), marker: { color: g.color }, hovertemplate: template, width: 0.9,
      }));
    }
    // One closed outline per group: a flat top over each of its layers, the baseline between
    // them (gaps would make plotly draw one element per segment).
    return groups.map(g => {
      const x = [], y = [], rows = [], text = [], templates = [];
      const own = new Set(g.rows);
      const zero = at => { x.push(at); y.push(0); rows.push(null); text.push(''); templates.push('<extra></extra>'); };
      let inRun = false;
      for (let i = 0; i < e.n; i++) {
        const v = own.has(i) ? value(i) : null;
        if (!isNum(v)) {
          if (!inRun) { zero(i - 0.5); inRun = true; }
          continue;
        }
        if (inRun) { zero(i - 0.5); inRun = false; }
        x.push(i - 0.5, i + 0.5);
        y.push(v, v);
        rows.push(i, i);
        text.push(names[i], names[i]);
        templates.push(template, template);
      }
      if (inRun) zero(e.n - 0.5);
      return {
        type: 'scatter', mode: 'lines', name: pesc(g.name), x, y, customdata: rows, hovertext: text,
        fill: 'tozeroy', line: { color: g.color, width: 1 }, fillcolor: g.color,
        hovertemplate: templates, hoveron: 'points',
      };
    });
  }

  function groupRows(e, key, map) {
    const groups = new Map();
    for (let i = 0; i < e.n; i++) {
      const k = key(i) || 'None';
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(i);
    }
    return [...groups.entries()].map(([k, rows]) => ({ name: k, rows, color: map ? colorOf(map, k) : k }));
  }

  function perLayerBars(e, value, colorBy, yTitle) {
    const L = e.L;
    const byPrecision = colorBy === 'precision';
    const groups = groupRows(e, i => (byPrecision ? L.precision : L.type)[i], byPrecision ? COLORS.precision : COLORS.type);
    return {
      data: layerTraces(e, groups, value, '%{y:.4g} ms'),
      layout: { barmode: 'overlay', bargap: 0, hovermode: 'closest', xaxis: { title: { text: 'Layer (execution order)' } }, yaxis: { title: { text: yTitle } }, legend: { orientation: 'h', y: -0.22 } },
    };
  }

  function slowestFigure(e, top) {
    const L = e.L;
    const rows = [...Array(e.n).keys()].filter(i => isNum(L.avg[i])).sort((a, b) => L.avg[b] - L.avg[a]).slice(0, top);
    if (!rows.length || !(L.avg[rows[0]] > 0)) return null;
    rows.reverse();
    const labels = rows.map((i, j) => pesc(`${rows.length - j}. ${cut(L.name[i], 48)}`));
    return {
      data: [{ type: 'bar', orientation: 'h', y: labels, x: rows.map(i => L.avg[i]), customdata: rows,
        marker: { color: rows.map(i => colorOf(COLORS.type, L.type[i])) },
        hovertext: rows.map(i => pesc(`${cut(L.name[i], 160)} (${L.type[i]})`)),
        hovertemplate: '%{hovertext}<br>%{x:.4g} ms<extra></extra>' }],
      layout: { margin: { l: 330 }, xaxis: { title: { text: 'Latency (ms)' } }, yaxis: { automargin: true, tickfont: { size: 11 } } },
    };
  }

  function memoryFigure(e) {
    const L = e.L;
    const all = [...Array(e.n).keys()];
    const data = e.n <= BAR_LIMIT / 2
      ? layerTraces(e, [{ name: 'Weights', rows: all, color: '#4682B4' }], i => L.weights[i], '%{y:,.0f} bytes')
        .concat(layerTraces(e, [{ name: 'Activations (I/O)', rows: all, color: '#76b900' }], i => L.io[i], '%{y:,.0f} bytes'))
      : [['Weights', L.weights, '#4682B4'], ['Activations (I/O)', L.io, '#76b900']].map(([name, values, color]) => ({
        type: 'scatter', mode: 'lines', name, x: all, y: values, customdata: all, stackgroup: 'bytes',
        line: { color, width: 1, shape: 'hvh' }, fillcolor: color,
        hovertext: all.map(i => pesc(cut(L.name[i], 120))),
        hovertemplate: '%{hovertext}<br>layer %{customdata}<br>%{y:,.0f} bytes<extra>' + name + '</extra>',
      }));
    return {
      data,
      layout: { barmode: 'stack', bargap: 0, hovermode: 'closest', xaxis: { title: { text: 'Layer (execution order)' } }, yaxis: { title: { text: 'Bytes' } }, legend: { orientation: 'h', y: -0.22 } },
    };
  }

  function rooflineFigure(e) {
    const R = e.d.roofline;
    const L = e.L;
    const idx = R.row.map((_, j) => j).filter(j => isNum(R.intensity[j]) && isNum(R.tflops[j]) && R.tflops[j] > 0);
    if (!idx.length) return null;
    const groups = new Map();
    for (const j of idx) {
      const t = L.type[R.row[j]];
      if (!groups.has(t)) groups.set(t, []);
      groups.get(t).push(j);
    }
    const maxAvg = Math.max(...idx.map(j => L.avg[R.row[j]] || 0)) || 1;
    const data = [...groups.entries()].map(([t, js]) => ({
      type: 'scatter', mode: 'markers', name: pesc(t), x: js.map(j => R.intensity[j]), y: js.map(j => R.tflops[j]),
      customdata: js.map(j => R.row[j]), hovertext: js.map(j => pesc(cut(L.name[R.row[j]], 120))),
      text: js.map(j => isNum(R.pct_roofline[j]) ? `${R.pct_roofline[j].toFixed(1)} % of roofline (${R.bound[j]} bound)` : ''),
      marker: { color: colorOf(COLORS.type, t), size: js.map(j => 5 + 15 * Math.sqrt((L.avg[R.row[j]] || 0) / maxAvg)), opacity: 0.75, line: { width: 0.5, color: '#333' } },
      hovertemplate: '%{hovertext}<br>%{x:.3g} FLOP/B, %{y:.3g} TFLOP/s<br>%{text}<extra>%{fullData.name}</extra>',
    }));
    const xs = idx.map(j => R.intensity[j]);
    const xmin = Math.min(...xs) / 2;
    const xmax = Math.max(...xs) * 2;
    const bw = R.bandwidth_gbps;
    if (isNum(bw)) {
      const peaks = Object.entries(R.peaks_tflops).filter(([, v]) => isNum(v));
      const top = peaks.length ? Math.max(...peaks.map(([, v]) => v)) : Math.max(...idx.map(j => R.tflops[j])) * 2;
      const ridge = top * 1000 / bw;
      data.push({ type: 'scatter', mode: 'lines', name: `memory roof (${fmtNum(bw)} GB/s)`, x: [xmin, Math.min(ridge, xmax)], y: [xmin * bw / 1000, Math.min(ridge, xmax) * bw / 1000], line: { color: '#333', dash: 'dash' }, hoverinfo: 'name' });
      for (const [p, v] of peaks) {
        data.push({ type: 'scatter', mode: 'lines', name: pesc(`${p} peak (${fmtNum(v)} TFLOP/s)`), x: [v * 1000 / bw, xmax], y: [v, v], line: { color: colorOf(COLORS.precision, p), width: 2 }, hoverinfo: 'name' });
      }
    }
    return { data, layout: { xaxis: { type: 'log', title: { text: 'Arithmetic intensity (FLOP/byte)' } }, yaxis: { type: 'log', title: { text: 'Achieved TFLOP/s' } }, legend: { font: { size: 11 } } } };
  }

  function efficiencyFigure(e) {
    const R = e.d.roofline;
    const heavy = new Set(['conv', 'gemm', 'deconv', 'convactpool']);
    const js = R.row.map((_, j) => j).filter(j => heavy.has(R.model[j]) && isNum(R.tflops[j]));
    if (!js.length) return null;
    const usePct = js.some(j => isNum(R.pct_roofline[j]));
    const value = new Map(js.map(j => [R.row[j], usePct ? R.pct_roofline[j] : R.tflops[j]]));
    const bound = new Map(js.map(j => [R.row[j], R.bound[j] || 'unknown']));
    const colors = { memory: '#4064ec', compute: '#e46d00', unknown: '#888888' };
    const groups = groupRows({ n: e.n }, i => value.has(i) ? bound.get(i) + ' bound' : null, null)
      .filter(g => g.name !== 'None').map(g => Object.assign(g, { color: colors[g.name.split(' ')[0]] || '#888888' }));
    return {
      data: layerTraces(e, groups, i => value.get(i), usePct ? '%{y:.3g} % of roofline' : '%{y:.3g} TFLOP/s'),
      layout: { barmode: 'overlay', bargap: 0, hovermode: 'closest', xaxis: { title: { text: 'Layer (execution order)' } }, yaxis: { title: { text: usePct ? '% of attainable (roofline)' : 'Achieved TFLOP/s' } }, legend: { orientation: 'h', y: -0.22 } },
    };
  }

  function onnxOpsFigure(e) {
    const f = e.d.onnx_ops;
    const ci = name => f.columns.indexOf(name);
    const rows = f.rows.filter(r => isNum(r[ci('latency_ms')]) && r[ci('latency_ms')] > 0).slice(0, 25).reverse();
    if (!rows.length) return null;
    return {
      data: [{ type: 'bar', orientation: 'h', y: rows.map(r => pesc(r[ci('onnx_op')])), x: rows.map(r => r[ci('latency_ms')]), marker: { color: '#76b900' },
        text: rows.map(r => `${r[ci('layers')]} layers`), hovertemplate: '%{y}: %{x:.4g} ms (%{text})<extra></extra>' }],
      layout: { margin: { l: 150 }, xaxis: { title: { text: 'Latency (ms, split between fused nodes)' } }, yaxis: { automargin: true } },
    };
  }

  // ================================================================== overview tab
  function buildOverview(sec, e) {
    const d = e.d;
    const hd = d.headline;
    const page = h('div', { class: 'page' });
    sec.append(page);
    page.append(h('div', { class: 'title-row' }, [h('h1', { id: 'engine-name', text: d.name }), h('span', { class: 'muted mono', text: d.path })]));
    const model = d.builder.Model || d.builder.model || d.builder['ONNX Model'] || '';
    const dev = d.device;
    const perf = d.performance;
    const cards = h('div', { class: 'cards' });
    const card = (title, big, pairs) => {
      const c = h('div', { class: 'card' }, [h('h3', { text: title })]);
      if (big) c.append(h('div', { class: 'big', text: big }));
      c.append(kvListFrom(pairs));
      cards.append(c);
    };
    card('Model', null, [['Engine', d.name], ['Model', model], ['Format', d.builder.Format || ''], ['Inputs', hd.inputs.join('\n')], ['Outputs', hd.outputs.join('\n')], ['Batch', hd.batch_size]]);
    card('Device', dev['Selected Device'] || (Object.keys(dev).length ? '' : 'unknown'), [
      ['Compute capability', dev['Compute Capability'] != null ? fmtValue(dev['Compute Capability']) : ''],
      ['SMs', fmtValue(dev.SMs)], ['Compute clock', fmtValue(dev['Application Compute Clock Rate'])],
      ['Memory clock', fmtValue(dev['Application Memory Clock Rate'])], ['Memory', fmtValue(dev['Device Global Memory'])],
      ['Bus width', fmtValue(dev['Memory Bus Width'])]]);
    card('Latency', isNum(hd.average_time_ms) ? `${fmtMs(hd.average_time_ms)} ms` : '', [
      ['Sum of layer averages', isNum(hd.average_time_ms) ? `${fmtMs(hd.average_time_ms)} ms` : ''],
      ['trtexec median latency', isNum(hd.latency_median_ms) ? `${fmtMs(hd.latency_median_ms)} ms` : ''],
      ['trtexec GPU compute median', isNum(hd.gpu_compute_median_ms) ? `${fmtMs(hd.gpu_compute_median_ms)} ms` : ''],
      ['Throughput', isNum(hd.throughput_qps) ? `${fmtNum(hd.throughput_qps)} qps` : ''],
      ['Profiled iterations', fmtValue(hd.profile_iterations)],
      ['Timed iterations', d.timings.available ? fmtNum(d.timings.iterations) : '']]);
    card('Layers', INT.format(hd.layers), [['Types', String(new Set(e.L.type).size)], ['Precisions', hd.precision_mix],
      ['Streams', fmtValue(hd.streams)], ['Profiles', (hd.profiles || []).join(', ')], ['Layer information', hd.detailed ? 'detailed' : 'names only'],
      ['ONNX node names', hd.onnx_metadata ? 'yes (Metadata)' : 'from layer names']]);
    card('Memory', fmtBytes(hd.weights_bytes) + ' weights', [['Weights', fmtBytes(hd.weights_bytes)], ['Activations (per-layer I/O, TREx)', fmtBytes(hd.activations_bytes)], ['Activation footprint (each tensor once)', fmtBytes(hd.activation_footprint_bytes)]]);
    const lintRows = d.lint.rows;
    const sev = { error: 0, warning: 0, info: 0 };
    lintRows.forEach(r => { sev[r[3]] = (sev[r[3]] || 0) + 1; });
    card('Linter findings', String(lintRows.length), [['Errors', String(sev.error)], ['Warnings', String(sev.warning)], ['Info', String(sev.info)]]);
    page.append(cards);
    if (d.warnings.length) {
      const det = h('details', { class: 'warnings', id: 'warnings' });
      if (d.warnings.length <= 5) det.open = true;
      det.append(h('summary', { text: `${d.warnings.length} validation warning${d.warnings.length > 1 ? 's' : ''}` }));
      det.append(h('ul', null, d.warnings.map(w => h('li', { text: w }))));
      page.append(det);
    }
    page.append(h('h2', { text: 'Latency' }));
    const g1 = h('div', { class: 'grid2' });
    page.append(g1);
    pyFigure(g1, d.figures.latency_by_type);
    chartCard(g1, 'Slowest layers', () => slowestFigure(e, 20), { id: 'slowest', onClick: pickLayer(e.k), none: 'No profile: no latencies.' });
    pyFigure(g1, d.figures.precision_rollup);
    pyFigure(g1, d.figures.precision_per_type);
    page.append(h('h2', { text: 'Timings over iterations' }));
    const T = d.timings;
    if (T.available) {
      const g2 = h('div', { class: 'grid2' });
      page.append(g2);
      pyFigure(g2, d.figures.timings, { id: 'timings', wide: true });
      const box = h('div', { class: 'chart-card wide' }, [h('h3', { text: 'Percentiles (ms, trtexec rule)' })]);
      box.append(h('div', { class: 'scroll-box' }, frameTable(T.percentiles)));
      if (T.flags.length) box.append(h('ul', { class: 'flags' }, T.flags.map(f => h('li', { text: f }))));
      else box.append(h('p', { class: 'note', text: 'No timing flag raised (host-bound, transfers, instability, warm-up, drift).' }));
      g2.append(box);
    } else {
      page.append(h('p', { class: 'note', text: 'No per-iteration timings (--exportTimes) were given for this engine.' }));
    }
    const sections = [['Builder configuration', d.builder], ['Device properties', d.device], ['Performance summary (trtexec)', d.performance], ['Inference options', d.inference]];
    for (const [title, obj] of sections) {
      if (!obj || !Object.keys(obj).length) continue;
      page.append(h('details', { class: 'section' }, [h('summary', { text: title }), kvList(obj)]));
    }
    if (d.timings.layer_gap && Object.keys(d.timings.layer_gap).length) {
      page.append(h('details', { class: 'section' }, [h('summary', { text: 'Sum of layers vs measured GPU time' }), kvList(d.timings.layer_gap)]));
    }
    void perf;
  }

  // ================================================================== charts tab
  function buildCharts(sec, e) {
    const d = e.d;
    const page = h('div', { class: 'page' });
    sec.append(page);
    page.append(h('h2', { text: 'Latency' }));
    const g1 = h('div', { class: 'grid2' });
    page.append(g1);
    const colorSel = h('select', { 'aria-label': 'Colour bars by' }, [h('option', { value: 'type', text: 'by type' }), h('option', { value: 'precision', text: 'by precision' })]);
    const perLayer = chartCard(g1, 'Latency per layer (ms)', () => e.L.avg.some(isNum) ? perLayerBars(e, i => e.L.avg[i], colorSel.value, 'Latency (ms)') : null,
      { id: 'latency-per-layer', controls: colorSel, onClick: pickLayer(e.k), none: 'No profile: no latencies.' });
    colorSel.addEventListener('change', () => perLayer.redraw());
    pyFigure(g1, d.figures.latency_distribution);
    pyFigure(g1, d.figures.count_by_type);
    chartCard(g1, 'Latency by ONNX op', () => onnxOpsFigure(e), { id: 'onnx-ops', none: 'No ONNX nodes known for these layers.' });
    page.append(h('h2', { text: 'Memory footprint' }));
    const g2 = h('div', { class: 'grid2' });
    page.append(g2);
    chartCard(g2, 'Weights and activations per layer', () => memoryFigure(e), { id: 'memory-per-layer', onClick: pickLayer(e.k) });
    pyFigure(g2, d.figures.total_distribution);
    pyFigure(g2, d.figures.weights_distribution);
    pyFigure(g2, d.figures.activations_distribution);
    page.append(h('h2', { text: 'Convolution and GEMM efficiency' }));
    const R = d.roofline;
    page.append(h('p', { class: 'note', text: R.gpu ? `Peaks of ${R.gpu} (${R.source}).` : `No peaks: ${R.source}. Points show achieved throughput only.` }));
    const g3 = h('div', { class: 'grid2' });
    page.append(g3);
    chartCard(g3, 'Roofline', () => rooflineFigure(e), { id: 'roofline', tall: true, onClick: pickLayer(e.k), none: 'No layer with a compute model and a latency.' });
    chartCard(g3, 'Convolution / GEMM efficiency', () => efficiencyFigure(e), { id: 'efficiency', tall: true, onClick: pickLayer(e.k), none: 'No convolution or GEMM layer with a latency.' });
    page.append(h('h2', { text: 'Tactics' }));
    page.append(h('div', { class: 'scroll-box' }, frameTable(d.tactics, { format: { 'latency %': v => isNum(v) ? v.toFixed(2) : '' } })));
  }

  // ================================================================== lint tab
  function buildLint(sec, e) {
    const d = e.d;
    const F = d.lint;
    const page = h('div', { class: 'page' });
    sec.append(page);
    page.append(h('h2', { text: `Linter findings (${F.rows.length})` }));
    if (F.notes.length) page.append(h('ul', { class: 'note' }, F.notes.map(n => h('li', { text: n }))));
    const bar = h('div', { class: 'toolbar' });
    const search = h('input', { type: 'search', id: 'lint-search', placeholder: 'Search findings', 'aria-label': 'Search findings' });
    const sevSel = h('select', { id: 'lint-severity', 'aria-label': 'Severity' });
    fillFilter(sevSel, F.rows.map(r => r[3]), 'All severities');
    const linterSel = h('select', { id: 'lint-linter', 'aria-label': 'Linter' });
    fillFilter(linterSel, F.rows.map(r => r[2]), 'All linters');
    const count = h('span', { class: 'count', id: 'lint-count' });
    append(bar, [search, sevSel, linterSel, count]);
    const box = h('div', { class: 'table-box' });
    box.append(bar);
    page.append(box);
    const R = F.rows;
    const table = new VirtualTable(box, {
      columns: [
        { key: 'sev', label: 'Severity', width: '84px', value: j => ['error', 'warning', 'info'].indexOf(R[j][3]), render: j => h('span', { class: 'sev ' + R[j][3], text: R[j][3] }) },
        { key: 'linter', label: 'Linter', width: '130px', value: j => R[j][2], text: j => R[j][2] },
        { key: 'layer', label: 'Layer', width: 'minmax(200px, 2fr)', min: '200px', value: j => R[j][1], text: j => R[j][1], title: j => R[j][1], link: j => R[j][0] != null },
        { key: 'hazard', label: 'Hazard', width: 'minmax(220px, 3fr)', min: '220px', value: j => R[j][4], text: j => R[j][4], title: j => R[j][4] },
        { key: 'mitigation', label: 'Mitigation', width: 'minmax(200px, 2fr)', min: '200px', value: j => R[j][6], text: j => R[j][6], title: j => R[j][6] },
        { key: 'evidence', label: 'Evidence', width: 'minmax(160px, 1fr)', min: '160px', text: j => R[j][5], title: j => R[j][5] },
      ],
      empty: F.rows.length ? 'No finding matches.' : 'No finding: the linters found nothing to report.',
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
          const text = [r[1], r[2], r[4], r[5], r[6]].join('\n').toLowerCase();
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

  // ================================================================== compare tab
  function buildCompare(sec) {
    const C = DATA.comparison;
    const page = h('div', { class: 'page' });
    sec.append(page);
    page.append(h('h2', { text: `Comparing ${C.names.length} engines (the first is the baseline)` }));
    page.append(plainTable(['', 'label', 'engine', 'path'], engines.map((e, k) => [String.fromCharCode(65 + k), e.label(), e.d.name, e.d.path])));
    page.append(h('h2', { text: 'Summary' }));
    page.append(h('div', { class: 'scroll-box' }, frameTable(C.summary)));
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
    const cols = [
      { key: 'pos', label: '#', width: '52px', num: true, value: p => p, text: p => String(p) },
      { key: 'type', label: 'Type', width: '100px', value: p => A.type[p], text: p => A.type[p] },
      { key: 'match', label: 'Match', width: '100px', value: p => A.match[p], text: p => A.match[p] },
    ];
    C.names.forEach((name, k) => {
      const nameOf = p => A.rows[k][p] == null ? '' : engines[k].L.name[A.rows[k][p]];
      cols.push({ key: 'n' + k, label: `${name} layer`, width: 'minmax(180px, 2fr)', min: '180px', value: p => nameOf(p), text: nameOf, title: nameOf, link: p => A.rows[k][p] != null });
      cols.push({ key: 'ms' + k, label: `${name} ms`, width: '84px', num: true, value: p => A.ms[k][p], text: p => fmtMs(A.ms[k][p]) });
    });
    cols.push({ key: 'delta', label: '\u0394 ms', tip: 'last - first', width: '84px', num: true, value: p => A.delta[p], text: p => fmtMs(A.delta[p]) });
    cols.push({ key: 'speedup', label: 'Speedup', tip: 'first / last', width: '80px', num: true, value: p => A.speedup[p], text: p => isNum(A.speedup[p]) ? A.speedup[p].toFixed(2) + '\u00d7' : '' });
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
        const common = { name: pesc(name), x: ps, y: ps.map(p => A.ms[k][p] || 0), customdata: ps.map(p => [A.rows[k][p], k]),
          hovertext: ps.map(p => pesc(cut(engines[k].L.name[A.rows[k][p]], 120))), hovertemplate: '%{hovertext}<br>%{y:.4g} ms<extra>%{fullData.name}</extra>' };
        return nRows * C.names.length <= BAR_LIMIT ? Object.assign({ type: 'bar' }, common)
          : Object.assign({ type: 'scatter', mode: 'lines', line: { shape: 'hvh', width: 1 } }, common);
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
  }

  // ================================================================== tabs, engines, hash
  const TABS = [['overview', 'Overview'], ['layers', 'Layers & graph'], ['charts', 'Charts'], ['lint', 'Lint'], ['compare', 'Compare']];

  function buildTabs() {
    const nav = document.getElementById('tabs');
    clear(nav);
    for (const [key, label] of TABS) {
      if (key === 'compare' && !DATA.comparison) continue;
      const b = h('button', { role: 'tab', id: 'tabbtn-' + key, 'aria-controls': 'tab-' + key, text: label, onclick: () => showTab(key) });
      if (key === 'lint') b.append(h('span', { class: 'count', id: 'lint-badge' }));
      nav.append(b);
    }
  }

  function updateTabBadges() {
    const badge = document.getElementById('lint-badge');
    if (badge) badge.textContent = String(eng().d.lint.rows.length);
  }

  function showTab(key) {
    if (key === 'compare' && !DATA.comparison) key = 'overview';
    app.tab = key;
    for (const [k] of TABS) {
      const sec = document.getElementById('tab-' + k);
      const btn = document.getElementById('tabbtn-' + k);
      if (sec) sec.classList.toggle('active', k === key);
      if (btn) btn.setAttribute('aria-selected', k === key ? 'true' : 'false');
    }
    ensureBuilt(key);
    if (key === 'layers' && app.explorer) app.explorer.graph.request(true);
    writeHash();
  }

  function ensureBuilt(key) {
    const sec = document.getElementById('tab-' + key);
    const stamp = key === 'compare' ? 'all' : String(app.k);
    if (app.built[key] === stamp) return;
    clear(sec);
    app.built[key] = stamp;
    const e = eng();
    if (key === 'overview') buildOverview(sec, e);
    else if (key === 'layers') { app.explorer = new Explorer(sec, e); if (app.selected >= 0) select(app.selected, 'hash', { focus: true }); }
    else if (key === 'charts') buildCharts(sec, e);
    else if (key === 'lint') buildLint(sec, e);
    else if (key === 'compare') buildCompare(sec);
  }

  function switchEngine(k) {
    if (k === app.k || !engines[k]) return;
    app.k = k;
    app.selected = -1;
    app.explorer = null;
    for (const key of Object.keys(app.built)) if (key !== 'compare') delete app.built[key];
    const sel = document.getElementById('engine-select');
    if (sel) sel.value = String(k);
    document.title = 'trex report: ' + eng().label();
    updateTabBadges();
    ensureBuilt(app.tab);
    writeHash();
  }

  function buildEnginePicker() {
    const box = document.getElementById('engine-picker');
    clear(box);
    if (engines.length === 1) {
      box.append(h('span', { class: 'single', text: engines[0].label(), title: engines[0].d.path }));
      return;
    }
    const sel = h('select', { id: 'engine-select', 'aria-label': 'Engine' });
    engines.forEach((e, k) => sel.append(h('option', { value: k, text: `${String.fromCharCode(65 + k)}: ${e.label()}` })));
    sel.addEventListener('change', () => switchEngine(Number(sel.value)));
    box.append(h('span', { text: 'Engine' }), sel);
  }

  function writeHash() {
    if (app.hashLock) return;
    const parts = [`tab=${app.tab}`];
    if (engines.length > 1) parts.push(`engine=${app.k}`);
    if (app.selected >= 0) parts.push(`layer=${app.selected}`);
    try { history.replaceState(null, '', '#' + parts.join('&')); } catch (err) { /* file:// in some browsers */ }
  }

  function readHash() {
    const out = {};
    for (const part of String(location.hash || '').replace(/^#/, '').split('&')) {
      const [k, v] = part.split('=');
      if (k === 'tab' && TABS.some(t => t[0] === v)) out.tab = v;
      if ((k === 'engine' || k === 'layer') && /^\d+$/.test(v || '')) out[k] = Number(v);
    }
    return out;
  }

  // ================================================================== start
  function start() {
    const hash = readHash();
    app.hashLock = true;
    if (hash.engine != null && engines[hash.engine]) app.k = hash.engine;
    if (hash.layer != null && hash.layer < eng().n) app.selected = hash.layer;
    document.title = 'trex report: ' + (engines.length > 1 ? DATA.title : eng().label());
    buildEnginePicker();
    buildTabs();
    updateTabBadges();
    const loading = document.getElementById('loading');
    if (loading) loading.remove();
    showTab(hash.tab || (app.selected >= 0 ? 'layers' : 'overview'));
    app.hashLock = false;
    writeHash();
    window.trexReport = { app, engines, select, showTab, switchEngine, openLayer };
    requestAnimationFrame(() => {
      document.documentElement.setAttribute('data-ready', '1');
      window.trexReady = performance.now();
    });
  }

  try {
    start();
  } catch (err) {
    const loading = document.getElementById('loading');
    if (loading) loading.textContent = 'The report could not be drawn: ' + (err && err.message);
    throw err;
  }
}());
