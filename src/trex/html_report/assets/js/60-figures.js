// @ts-check
/* The one figure pipeline: plotly.js loaded on demand, charts drawn when in view. */

// ================================================================== charts
const PLOT_CONFIG = { displaylogo: false, responsive: true, scrollZoom: false, modeBarButtonsToRemove: ['sendDataToCloud', 'lasso2d', 'select2d'] };
const BASE_LAYOUT = {
  margin: { l: 60, r: 20, t: 32, b: 50 }, autosize: true,
  paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)',
  font: { family: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif', size: 12 },
  hoverlabel: { namelength: -1 },
};
// plotly.js (the partial bundle) is inlined as text and run when the first chart is drawn, after
// the first paint: the table and the graph need not wait for it. The page's Content-Security-Policy
// lets it run by its hash. Charts are then drawn one per task, so a click between two charts is
// handled at once.
let plotlyState = 0;
/** @type {(() => void)[]} */
const chartQueue = [];
/** @param {() => void} fn */
function withPlotly(fn) {
  chartQueue.push(fn);
  if (plotlyState === 2) { if (chartQueue.length === 1) setTimeout(drainCharts, 0); return; }
  if (plotlyState) return;
  plotlyState = 1;
  setTimeout(() => {
    const source = document.getElementById('trex-plotly');
    if (source && !window.Plotly) {
      const run = document.createElement('script');
      run.id = 'trex-plotly-run';
      run.textContent = source.textContent;
      document.body.append(run); // an inline script runs when inserted
    }
    plotlyState = 2;
    setTimeout(drainCharts, 0);
  }, 30);
}

function drainCharts() {
  const fn = chartQueue.shift();
  if (!fn) return;
  fn();
  if (chartQueue.length) setTimeout(drainCharts, 0);
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
        if (entry.isIntersecting) { observer.unobserve(entry.target); /** @type {HTMLElement} */ (entry.target).trexDraw(); }
      }
    }, { root, rootMargin: '300px 0px' });
    observers.set(root, observer);
  }
  observer.observe(el);
}

/**
 * @typedef {Object} ChartOptions
 * @property {string} [id] the card's data-chart name
 * @property {boolean} [wide]
 * @property {boolean} [tall]
 * @property {Node|Node[]} [controls] in the card's head
 * @property {string} [note] under the chart
 * @property {string} [none] shown when the figure is null (no data)
 * @property {(point: any) => void} [onClick] a clicked point
 */

/**
 * The figure pipeline: every chart of the page, from Python (trex.report, trex.compare) or built
 * here, goes through this one function: the page's layout defaults, then plotly.
 * @param {HTMLElement} body @param {Figure} fig @param {ChartOptions} opts
 */
function renderFigure(body, fig, opts) {
  const own = fig.layout || {};
  /** @type {Object<string, any>} */
  const layout = Object.assign({}, BASE_LAYOUT, own);
  if (layout.yaxis2) layout.legend = Object.assign({}, layout.legend, { orientation: 'h', x: 0, xanchor: 'left', y: -0.25, yanchor: 'top' });
  layout.legend = outsideLegend(layout.legend);
  layout.margin = Object.assign({}, BASE_LAYOUT.margin, own.margin || {});
  layout.margin.t = Math.max(32, Math.min(layout.margin.t || 32, 60)); // room for the mode bar
  for (const key of ['xaxis', 'yaxis', ...Object.keys(layout).filter(k => /^[xy]axis\d+$/.test(k))]) {
    layout[key] = Object.assign({ automargin: true }, layout[key] || {});
  }
  if (Array.isArray(layout.annotations)) {
    layout.annotations = layout.annotations.map(a => Object.assign({}, a, { font: Object.assign({ size: 12 }, a.font || {}) }));
  }
  clear(body);
  window.Plotly.newPlot(body, fig.data, layout, PLOT_CONFIG).then(() => {
    body.setAttribute('data-drawn', '1');
    body.setAttribute('data-settled', '1');
    if (opts.onClick) {
      const onClick = opts.onClick;
      /** @type {any} */ (body).on('plotly_click', (/** @type {any} */ ev) => { const p = ev.points && ev.points[0]; if (p) onClick(p); });
    }
  });
}

/**
 * A legend placed outside the plot area: one inside it (paper coordinates 0..1 on both axes)
 * would cover bars; a vertical one goes to the right of the plot, a horizontal one below it.
 * @param {Object<string, any>|undefined} legend @returns {Object<string, any>|undefined}
 */
function outsideLegend(legend) {
  if (!legend) return legend;
  const inside = v => isNum(v) && v >= 0 && v <= 1;
  const x = legend.x;
  const y = legend.y;
  if (legend.orientation === 'h') {
    if (y == null || inside(y)) return Object.assign({}, legend, { y: -0.22, yanchor: 'top' });
    return legend;
  }
  if (inside(x) && (y == null || inside(y))) return Object.assign({}, legend, { x: 1.02, xanchor: 'left' });
  return legend;
}

/**
 * A chart card: `build()` makes its figure (null: no data) when the card first comes into view.
 * @param {HTMLElement} parent @param {string} title @param {() => Figure|null|undefined} build
 * @param {ChartOptions} [opts]
 */
function chartCard(parent, title, build, opts) {
  const o = opts || {};
  const card = h('div', { class: 'chart-card' + (o.wide ? ' wide' : ''), 'data-chart': o.id || title });
  const head = h('div', { class: 'chart-head' }, [h('h3', { text: title })]);
  if (o.controls) append(head, o.controls);
  const body = h('div', { class: 'chart' + (o.tall ? ' tall' : '') });
  body.append(h('div', { class: 'placeholder', text: 'Drawing\u2026' }));
  card.append(head, body);
  if (o.note) card.append(h('div', { class: 'note', text: o.note }));
  parent.append(card);
  let drawn = false;
  const draw = () => withPlotly(() => {
    drawn = true;
    if (!window.Plotly) { clear(body).append(h('div', { class: 'placeholder', text: 'plotly.js did not load.' })); return; }
    let fig;
    try { fig = build(); } catch (err) {
      console.warn('trex report: chart failed', title, err);
      clear(body).append(h('div', { class: 'error-box', text: `This chart could not be drawn: ${err && err.message}` }));
      body.setAttribute('data-settled', '1');
      return;
    }
    if (!fig) {
      clear(body).append(h('div', { class: 'placeholder', text: o.none || 'No data for this chart.' }));
      body.setAttribute('data-settled', '1');
      return;
    }
    renderFigure(body, fig, o);
  });
  body.trexDraw = draw;
  card.redraw = () => { if (drawn) draw(); };
  whenVisible(body);
  return card;
}

/**
 * A figure made in Python, or the reason it could not be.
 * @param {HTMLElement} parent @param {PyFigure|undefined} fig @param {ChartOptions} [opts]
 */
function pyFigure(parent, fig, opts) {
  if (!fig) return null;
  if (fig.error || !fig.figure) {
    const card = h('div', { class: 'chart-card' }, [h('h3', { text: fig.title }), h('div', { class: 'error-box', text: `Not available: ${fig.error}` })]);
    parent.append(card);
    return card;
  }
  const figure = fig.figure;
  const pies = (figure.data || []).filter((/** @type {any} */ t) => t.type === 'pie').length;
  return chartCard(parent, fig.title, () => figure, Object.assign({ wide: pies >= 3 }, opts || {}));
}

function pickLayer(k) {
  return p => {
    const row = Array.isArray(p.customdata) ? p.customdata[0] : p.customdata;
    if (isNum(row)) openLayer(k, row);
  };
}

// Per-layer values as one trace per group: bars for small engines; above BAR_LIMIT layers a
// filled step outline (one path per group instead of one element per bar, same picture).
