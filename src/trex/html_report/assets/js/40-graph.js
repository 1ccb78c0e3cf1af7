// @ts-check
/* GraphView: the engine graph, drawn from laid-out positions, only what is in view. Its legend
 * (42-graph-legend.js) sits in a bar above the drawing; the layers the table's filters leave out
 * are dimmed. */

// ================================================================== graph view
const FULL_LOD = 0.38; // scale above which node labels are drawn
const MAX_FULL_NODES = 2500;

class GraphView {
  /**
   * @param {HTMLElement} parent @param {Engine} engine @param {(node: number) => void} onPick
   * @param {(by: string, key: string) => void} [onLegend] a legend entry clicked (colouring, key)
   */
  constructor(parent, engine, onPick, onLegend) {
    this.e = engine;
    this.g = engine.d.graph;
    this.onPick = onPick;
    this.onLegend = onLegend;
    /** Per node, 1 when the table's filters keep it (null: no filter, nothing dimmed). @type {Uint8Array|null} */
    this.focus = null;
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
    this.full = new Set(E.full);
    /** Each edge's points x0, y0, x1, y1, ..., made when the edge is first drawn. @type {(number[]|undefined)[]} */
    this.routes = new Array(m);
    this.bbox = new Float64Array(m * 4);
    for (let j = 0; j < m; j++) {
      const p = E.route[j];
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      if (!this.full.has(j)) { // the default end points, left out of the payload
        const s = E.src[j];
        const t = E.dst[j];
        x0 = Math.min(this.X[s], this.X[t]); x1 = Math.max(this.X[s], this.X[t]);
        y0 = Math.min(this.Y[s] + this.H[s] / 2, this.Y[t] - this.H[t] / 2);
        y1 = Math.max(this.Y[s] + this.H[s] / 2, this.Y[t] - this.H[t] / 2);
      }
      for (let q = 0; q < p.length; q += 2) {
        x0 = Math.min(x0, p[q]); x1 = Math.max(x1, p[q]);
        y0 = Math.min(y0, p[q + 1]); y1 = Math.max(y1, p[q + 1]);
      }
      this.bbox[j * 4] = x0; this.bbox[j * 4 + 1] = y0; this.bbox[j * 4 + 2] = x1; this.bbox[j * 4 + 3] = y1;
    }
    this.colorBy = 'type';
    this.s = 1; this.tx = 0; this.ty = 0;
    this.selectedNode = -1;
    this.matches = [];
    this.matchPos = -1;
    this.rendered = null;
    this.generation = 0;
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
    // Typing searches after a pause; Enter searches at once and steps to the next match (a search
    // of the same words still pending must not reset the step afterwards).
    this.searchBox.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => this.find(this.searchBox.value, true), 120); });
    this.searchBox.addEventListener('keydown', ev => {
      if (ev.key === 'Enter') { ev.preventDefault(); clearTimeout(timer); this.find(this.searchBox.value, true); this.step(ev.shiftKey ? -1 : 1); }
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
    // The legend is a bar between the toolbar and the drawing: it never covers a node.
    this.legend = new GraphLegend(this.e, this.onLegend);
    this.mini = h('div', { class: 'minimap', title: 'Overview: click or drag to move' });
    this.miniBase = h('canvas');
    this.miniView = h('canvas');
    this.mini.append(this.miniBase, this.miniView);
    this.stage.append(this.svg, this.mini);
    parent.append(bar, this.legend.box, this.stage);
    // why the graph is not laid out by Graphviz dot (too slow for this graph, or out of time)
    if (this.g.layout_note) parent.append(h('div', { class: 'graph-note', id: 'graph-layout-note', text: this.g.layout_note }));
    this.bindEvents();
    this.legend.render(this.colorBy);
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

  /** Edge j's points x0, y0, x1, y1, ... (the payload leaves out the default end points). @param {number} j */
  route(j) {
    let p = this.routes[j];
    if (!p) {
      const E = this.g.edges;
      const s = E.src[j];
      const t = E.dst[j];
      p = this.full.has(j) ? E.route[j]
        : [this.X[s], r1(this.Y[s] + this.H[s] / 2), ...E.route[j], this.X[t], r1(this.Y[t] - this.H[t] / 2)];
      this.routes[j] = p;
    }
    return p;
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
    later(() => this.drawMinimap()); // after the first view
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
      // What is in view first; half a view around it when the page is idle (for panning).
      this.draw(vx0, vy0, vx1, vy1, lod);
      const generation = ++this.generation;
      later(() => {
        if (generation !== this.generation) return; // moved since: that draw is the one to extend
        const mx = (vx1 - vx0) * 0.5;
        const my = (vy1 - vy0) * 0.5;
        this.draw(vx0 - mx, vy0 - my, vx1 + mx, vy1 + my, lod);
      });
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
      const p = this.route(j);
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
    // Hub buses (a tensor feeding many layers): one thick translucent line each, edges branch off it.
    const B = this.g.buses;
    if (B) B.route.forEach((p, b) => {
      if (p.length >= 4) edgeFrag.append(svgEl('path', { class: 'bus', d: routePath(p), stroke: pal[B.color[b]], fill: 'none', 'stroke-width': 3, 'stroke-opacity': 0.6 }));
    });
    this.edgeLayer.replaceChildren(edgeFrag);
    const fills = this.fills();
    const nodeFrag = document.createDocumentFragment();
    const focus = this.focus;
    let dimmed = 0;
    if (lod === 'full') {
      for (const i of visible) {
        const g = this.nodeElement(i, pal[fills[i]], this.g.ink[fills[i]]);
        if (focus && !focus[i]) { g.setAttribute('class', 'dim'); dimmed++; }
        nodeFrag.append(g);
      }
    } else {
      const byFill = new Map(); // key: fill * 2 + dimmed
      for (const i of visible) {
        const dim = focus && !focus[i] ? 1 : 0;
        dimmed += dim;
        const f = fills[i] * 2 + dim;
        if (!byFill.has(f)) byFill.set(f, []);
        const l = this.X[i] - this.W[i] / 2;
        const t = this.Y[i] - this.H[i] / 2;
        byFill.get(f).push(`M${l.toFixed(1)},${t.toFixed(1)}h${this.W[i]}v${this.H[i]}h${-this.W[i]}z`);
      }
      for (const [f, parts] of byFill) {
        nodeFrag.append(svgEl('path', { d: parts.join(''), fill: pal[f >> 1], stroke: '#888', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke', class: f & 1 ? 'dim' : null }));
      }
    }
    this.nodeLayer.replaceChildren(nodeFrag);
    this.nodeLayer.setAttribute('data-lod', lod);
    this.nodeLayer.setAttribute('data-count', String(visible.length));
    this.nodeLayer.setAttribute('data-dimmed', String(dimmed));
    this.edgeLayer.classList.toggle('dim', !!focus);
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
    const rows = N.rows[i].map(c => N.text[c]);
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
        if ((E.src[j] === sel || E.dst[j] === sel) && this.route(j).length >= 4) parts.push(routePath(this.route(j)));
      }
      const B = this.g.buses;
      if (B) B.node.forEach((v, b) => { if (v === sel && B.route[b].length >= 4) parts.push(routePath(B.route[b])); });
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
    const focus = this.focus;
    for (let i = 0; i < this.n; i++) {
      ctx.globalAlpha = focus && !focus[i] ? 0.2 : 1;
      ctx.fillStyle = pal[fills[i]];
      ctx.fillRect((this.X[i] - this.W[i] / 2) * mx, (this.Y[i] - this.H[i] / 2) * my,
        Math.max(1, this.W[i] * mx), Math.max(1, this.H[i] * my));
    }
    ctx.globalAlpha = 1;
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
    this.legend.render(this.colorBy);
    this.drawMinimap();
    this.request(true);
  }

  /**
   * Dim every node but the layers of `rows` (the table's filtered rows); null undims.
   * @param {number[]|null} rows
   */
  setFocus(rows) {
    if (rows == null) this.focus = null;
    else {
      const focus = this.focus = new Uint8Array(this.n);
      for (const r of rows) { const node = this.nodeOfRow[r]; if (node >= 0) focus[node] = 1; }
    }
    this.stage.classList.toggle('filtered', !!this.focus);
    this.request(true);
    if (this.mScale) this.drawMinimap();
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

/** @param {number} v rounded to 0.1 (as the payload's coordinates) */
function r1(v) { return Math.round(v * 10) / 10; }

/** @param {number[]} p */
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
