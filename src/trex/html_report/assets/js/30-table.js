// @ts-check
/* VirtualTable: a sortable table that draws only the rows in view. */

/**
 * A column of a VirtualTable; items are ids (layer rows, finding indices, ...).
 * @typedef {Object} Column
 * @property {string} key
 * @property {string} label
 * @property {string} [width] a CSS grid track
 * @property {string} [min] the track's minimum width
 * @property {string} [tip]
 * @property {boolean} [num] right-aligned; sorted largest first
 * @property {(i: number) => any} [value] sort key (no value: not sortable)
 * @property {(i: number) => string} [text]
 * @property {(i: number) => Node} [render] instead of text
 * @property {((i: number) => string)|null} [title]
 * @property {(i: number) => boolean} [link]
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
