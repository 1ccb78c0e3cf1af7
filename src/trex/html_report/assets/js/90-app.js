// @ts-check
/* Tabs, engine switching, the URL hash and start-up. */

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
  if (badge) badge.textContent = String(eng().d.lint.rows.row.length);
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
  sec.scrollTop = 0; // another engine's page starts at its top
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
  const sel = /** @type {HTMLSelectElement|null} */ (document.getElementById('engine-select'));
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
  engines.forEach((e, k) => sel.append(h('option', { value: k, text: `${e.d.letter}: ${e.label()}` })));
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
