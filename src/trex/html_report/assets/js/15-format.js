// @ts-check
/* Number and text formatting, small tables and colour swatches. */

const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** How a figure the inputs do not provide is shown (never as 0). */
const MISSING = '\u2013';

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
  /** @type {[number, string][]} */
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

/**
 * Linter evidence (a JSON object, as text) as readable `[key, value]` pairs: numbers with the unit
 * the key names (`*_ms`, `*_pct`, `bytes`); null when the text is not a JSON object. Text only: the
 * caller puts it in textContent.
 * @param {string} raw @returns {[string, string][]|null}
 */
function evidencePairs(raw) {
  let obj;
  try { obj = JSON.parse(raw); } catch (err) { return null; }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return null;
  return Object.keys(obj).map(key => unitPair(key, obj[key]));
}

/**
 * A `snake_case` key and its value as a label and text, with the unit the key names: `*_ms`,
 * `*_us`, `*_pct`, `bytes` (e.g. `latency_ms` 0.0087 is "latency", "0.0087 ms").
 * @param {string} key @param {any} v @returns {[string, string]}
 */
function unitPair(key, v) {
  const unit = /_(ms|us|pct)$/.exec(key);
  const label = (unit ? key.slice(0, unit.index) : key).replace(/_/g, ' ');
  if (!isNum(v)) return [label, fmtValue(v)];
  if (unit && unit[1] === 'ms') return [label, `${fmtMs(v)} ms`];
  if (unit && unit[1] === 'us') return [label, `${fmtNum(v)} \u00b5s`];
  if (unit) return [label, `${fmtNum(v)} %`];
  if (/(^|_)bytes(_|$)/.test(key)) return [label, fmtBytes(v)];
  return [label, fmtNum(v)];
}

/** Evidence on one line (`key: value, ...`), or the raw text when it is not a JSON object. @param {string} raw */
function evidenceText(raw) {
  const pairs = evidencePairs(raw);
  return pairs ? pairs.map(([k, v]) => `${k}: ${v}`).join(', ') : String(raw);
}

// plotly renders a small HTML subset inside text: data strings are entity-escaped for it.
function pesc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A precision as the page shows it: a names-only export gives none, so it is "unknown" there (a
 * detailed one says None for a layer without an input tensor, as the charts and colours do).
 * @param {string|null|undefined} p @param {boolean} detailed
 */
function precisionText(p, detailed) {
  if (p && p !== 'None') return p;
  return detailed ? 'None' : 'unknown';
}

/**
 * Integer precisions do integer operations: their compute is counted in OPs, not FLOPs.
 * @param {string|null|undefined} p @returns {'OP'|'FLOP'}
 */
function opUnit(p) { return /^U?INT\d+$/i.test(String(p || '')) ? 'OP' : 'FLOP'; }

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
