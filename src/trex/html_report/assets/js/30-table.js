// @ts-check
/* VirtualTable: a sortable table that draws only the rows in view; columns sized to their
 * content (within limits) and resizable by dragging their header's right edge. Columns marked
 * `keep` stay in view without scrolling sideways: the `squeeze` column (a layer's name) gives up
 * width for them, down to its minimum, and shows its full text on hover. */

/**
 * A column of a VirtualTable; items are ids (layer rows, finding indices, ...).
 * @typedef {Object} Column
 * @property {string} key
 * @property {string} label
 * @property {string} [width] a CSS grid track
 * @property {string} [min] the track's minimum width
 * @property {number} [fit] sized to its widest text (px, between `min` and this), once items are set
 * @property {string} [tip]
 * @property {boolean} [num] right-aligned; sorted largest first
 * @property {(i: number) => any} [value] sort key (no value: not sortable)
 * @property {(i: number) => string} [text]
 * @property {(i: number) => Node} [render] instead of text
 * @property {((i: number) => string)|null} [title]
 * @property {(i: number) => boolean} [link]
 * @property {boolean} [keep] stays in view at the table's width: the `squeeze` column narrows for it
 * @property {boolean} [squeeze] gives up width (down to `min`) so that every `keep` column is in view
 */
/**
 * @typedef {Object} TableOptions
 * @property {Column[]} columns
 * @property {number} [rowHeight]
 * @property {string} [sortKey]
 * @property {number} [sortDir]
 * @property {string} [empty]
 * @property {(item: number, column: string|null, ev: Event) => void} [onClick]
 */

// ================================================================== virtual table
// Draws only the rows in view.
class VirtualTable {
  /** @param {HTMLElement} parent @param {TableOptions} opts */
  constructor(parent, opts) {
    this.opts = opts;
    this.rowHeight = opts.rowHeight || 26;
    this.columns = opts.columns;
    this.items = [];
    this.view = [];
    /** What the rows on screen show: a render of the same view and range keeps them. @type {{view: number[], first: number, last: number}|null} */
    this.drawn = null;
    this.selected = -1;
    this.sortKey = opts.sortKey || null;
    this.sortDir = opts.sortDir || 1;
    /** Column widths in px once fitted or resized (else the column's `width`). @type {Map<string, {px: number, fixed: boolean}>} */
    this.sized = new Map();
    this.fitted = false;
    this.root = h('div', { class: 'vt' });
    this.body = h('div', { class: 'vt-body', tabindex: '0', role: 'grid' });
    this.head = h('div', { class: 'vt-head', role: 'row' });
    this.canvas = h('div', { class: 'vt-canvas' });
    this.canvas.style.display = 'block';
    this.columns.forEach(c => {
      const b = h('button', { class: c.num ? 'num' : null, text: c.label, title: c.tip || c.label, 'data-col': c.key });
      if (c.value) b.addEventListener('click', () => this.sortBy(c.key));
      else b.disabled = true;
      const grip = h('span', { class: 'vt-resize', title: 'Drag to resize the column', 'data-resize': c.key });
      grip.addEventListener('pointerdown', ev => this.startResize(ev, c, grip));
      this.head.append(h('div', { class: 'vt-hcell', 'data-col': c.key }, [b, grip]));
    });
    this.applyTemplate();
    this.empty = h('div', { class: 'vt-empty', text: opts.empty || 'Nothing to show.' });
    this.body.append(this.head, this.canvas, this.empty);
    this.root.append(this.body);
    parent.append(this.root);
    this.pending = false;
    this.body.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.canvas.addEventListener('click', ev => this.onClick(ev));
    this.body.addEventListener('keydown', ev => this.onKey(ev));
    /** The body's width the tracks were made for (the squeezed column follows it). */
    this.madeFor = 0;
    if (window.ResizeObserver) new ResizeObserver(() => this.onResize()).observe(this.body);
    this.updateSortMarks();
  }

  setItems(items) {
    this.items = items;
    if (!this.fitted && items.length) { this.fitted = true; this.fitColumns(items); }
    this.applySort();
  }

  /** A new width of the body: the squeezed column is fitted to it again. */
  onResize() {
    const width = this.body.clientWidth;
    if (width && width !== this.madeFor && this.columns.some(c => c.squeeze)) this.applyTemplate();
    this.schedule();
  }

  /** A column's width in px as its track is now (fitted, resized, or its `width`/`min`). @param {Column} c */
  trackPx(c) {
    const s = this.sized.get(c.key);
    return s ? s.px : parseInt(c.min || c.width || '100', 10) || 100;
  }

  /**
   * The `squeeze` column's width when it must narrow so that the columns up to the last `keep`
   * one fit the body's visible width (never below its `min`); null when it need not (or the user
   * sized it, or the table is not laid out yet).
   * @param {Column} c @returns {number|null}
   */
  squeezed(c) {
    const s = this.sized.get(c.key);
    const visible = this.body.clientWidth;
    this.madeFor = visible;
    if ((s && s.fixed) || !visible) return null;
    let last = -1;
    this.columns.forEach((col, j) => { if (col.keep) last = j; });
    let others = 0;
    for (let j = 0; j <= last; j++) if (this.columns[j] !== c) others += this.trackPx(this.columns[j]);
    const min = parseInt(c.min || '120', 10) || 120;
    const room = Math.floor(visible - others);
    return room < this.trackPx(c) ? Math.max(min, room) : null;
  }

  /** The grid tracks: fitted columns keep their share of spare room (their `fr`). */
  applyTemplate() {
    let minWidth = 0;
    this.template = this.columns.map(c => {
      const narrow = c.squeeze ? this.squeezed(c) : null;
      if (narrow != null) { minWidth += narrow; return `${narrow}px`; }
      const s = this.sized.get(c.key);
      if (!s) { minWidth += parseInt(c.min || c.width || '100', 10) || 100; return c.width || '100px'; }
      minWidth += s.px;
      const grow = /([\d.]+)fr/.exec(c.width || '');
      return s.fixed || !grow ? `${s.px}px` : `minmax(${s.px}px, ${grow[1]}fr)`;
    }).join(' ');
    this.minWidth = minWidth;
    for (const el of [this.head, this.canvas]) {
      el.style.gridTemplateColumns = this.template;
      el.style.minWidth = this.minWidth + 'px';
    }
    for (const row of this.canvas.children) /** @type {HTMLElement} */ (row).style.gridTemplateColumns = this.template;
  }

  /**
   * Size the `fit` columns to their widest text among `items` (the longest strings, measured in
   * the table's font), between the column's minimum and its `fit` limit.
   * @param {number[]} items
   */
  fitColumns(items) {
    const canvas = document.createElement('canvas');
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const style = getComputedStyle(this.body);
    for (const c of this.columns) {
      if (!c.fit) continue;
      const text = c.text;
      // the 40 longest texts (by characters), then their rendered widths
      const longest = [];
      if (text) for (const i of items) {
        const t = String(text(i));
        if (longest.length < 40) { longest.push(t); longest.sort((a, b) => b.length - a.length); }
        else if (t.length > longest[39].length) { longest[39] = t; longest.sort((a, b) => b.length - a.length); }
      }
      ctx.font = `${style.fontWeight} 12.5px ${style.fontFamily}`;
      let widest = 0;
      for (const t of longest) widest = Math.max(widest, ctx.measureText(t).width);
      ctx.font = `600 12.5px ${style.fontFamily}`;
      widest = Math.max(widest, ctx.measureText(c.label + ' \u25bc').width);
      const min = parseInt(c.min || c.width || '60', 10) || 60;
      this.sized.set(c.key, { px: Math.round(Math.min(c.fit, Math.max(min, widest + 16))), fixed: false });
    }
    this.applyTemplate();
  }

  /** Drag a header's right edge: the column takes the width the pointer gives it. */
  startResize(ev, column, grip) {
    ev.stopPropagation();
    const cell = grip.parentElement;
    const start = cell ? cell.getBoundingClientRect().width : 100;
    dragX(grip, ev, dx => {
      this.sized.set(column.key, { px: Math.max(36, Math.round(start + dx)), fixed: true });
      this.applyTemplate();
    });
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
    for (const b of this.head.querySelectorAll('button')) {
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
    const drawn = this.drawn;
    // Rows already on screen stay: replacing them between a press and its release would turn
    // the click into one on the canvas, and a resize or scroll within the range changes nothing.
    if (drawn && drawn.view === this.view && drawn.first === first && drawn.last === last) return;
    this.drawn = { view: this.view, first, last };
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
