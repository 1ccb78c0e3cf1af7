// @ts-check
/* The layer table's columns, built from their declaration in the data (DATA.layer_columns, from
 * trex/html_report/layer_columns.py): each kind of cell text, sort key and hover text a declaration
 * can name (column_spec.TextKind, SortKind, TitleKind) is implemented once here, and tsc checks
 * that every kind has its implementation. A new column is one declaration in Python, nothing here. */

/** What a cell's text may depend on beyond its value. @typedef {{detailed: boolean}} CellContext */

/**
 * A cell's text from its value.
 * @type {Record<TextKind, (v: any, ctx: CellContext) => string>}
 */
const TEXT_KINDS = {
  plain: v => v == null ? '' : String(v),
  precision: (v, ctx) => precisionText(v, ctx.detailed),
  ms: v => fmtMs(v),
  fixed2: v => isNum(v) ? v.toFixed(2) : '',
  bytes: v => fmtBytes(v),
  list: v => v.join(', '),
};

/**
 * What a column sorts by, from a cell's value and text.
 * @type {Record<SortKind, (v: any, text: string) => any>}
 */
const SORT_KINDS = {
  value: v => v,
  text: (v, text) => text,
  lower: (v, text) => text.toLowerCase(),
};

/**
 * A cell's hover text from its text and value, and the value of the column the declaration names
 * as `other` (with its text in the column's own text kind).
 * @type {Record<TitleKind, (text: string, v: any, other: any, otherText: (v: any) => string) => string>}
 */
const TITLE_KINDS = {
  text: text => text,
  lines: (text, v) => v.join('\n'),
  detail: (text, v, other, otherText) => other ? `${text} (${otherText(other)})` : text,
  flow: (text, v, other, otherText) => `in ${text} \u2192 out ${otherText(other)}`,
};

/**
 * The VirtualTable columns of an engine's layer table: the declared columns that have a `show`,
 * in declaration order (`row` columns show the row's position).
 * @param {Engine} e @returns {Column[]}
 */
function layerTableColumns(e) {
  /** @type {Object<string, any[]>} */
  const L = /** @type {any} */ (e.L);
  const ctx = { detailed: e.d.detailed };
  return DATA.layer_columns.filter(c => c.show).map(c => {
    const s = c.show;
    const values = c.encoding === 'row' ? null : L[c.key];
    const get = values ? (/** @type {number} */ i) => values[i] : (/** @type {number} */ i) => i;
    const format = (/** @type {any} */ v) => TEXT_KINDS[s.text](v, ctx);
    const text = (/** @type {number} */ i) => format(get(i));
    const sort = SORT_KINDS[s.sort];
    const hover = s.title ? TITLE_KINDS[s.title] : null;
    const other = s.other ? L[s.other] : null;
    /** @type {Column} */
    const column = {
      key: c.key, label: s.label, tip: s.tip, width: s.width, min: s.min, fit: s.fit,
      num: s.num, keep: s.keep, squeeze: s.squeeze,
      value: i => sort(get(i), text(i)),
      text,
      title: null,
    };
    if (hover || s.blank) {
      column.title = i => {
        const t = text(i);
        if (t === '' && s.blank) return s.blank;
        return hover ? hover(t, get(i), other ? other[i] : null, format) : '';
      };
    }
    return column;
  });
}
