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
