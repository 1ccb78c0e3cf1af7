// @ts-check
/* Figures built in the page from the layer columns (per-layer, roofline, efficiency). */

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

/**
 * The rows grouped by `key`, each group with its colour in `map` and its name (`label` words a key).
 * @param {{n: number}} e @param {(i: number) => string|null} key @param {Object<string, string>|null} map
 * @param {(k: string) => string} [label]
 */
function groupRows(e, key, map, label) {
  const groups = new Map();
  for (let i = 0; i < e.n; i++) {
    const k = key(i) || 'None';
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(i);
  }
  return [...groups.entries()].map(([k, rows]) => ({ name: label ? label(k) : k, rows, color: map ? colorOf(map, k) : k }));
}

function perLayerBars(e, value, colorBy, yTitle) {
  const L = e.L;
  const byPrecision = colorBy === 'precision';
  const groups = byPrecision ? groupRows(e, i => L.precision[i], COLORS.precision, k => precisionText(k, e.d.detailed))
    : groupRows(e, i => L.type[i], COLORS.type);
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
  const R = e.R;
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
  /** @type {Object[]} */
  const data = [...groups.entries()].map(([t, js]) => ({
    type: 'scatter', mode: 'markers', name: pesc(t), x: js.map(j => R.intensity[j]), y: js.map(j => R.tflops[j]),
    customdata: js.map(j => R.row[j]), hovertext: js.map(j => pesc(cut(L.name[R.row[j]], 120))),
    text: js.map(j => (isNum(R.pct_roofline[j]) ? `${R.pct_roofline[j].toFixed(1)} % of roofline (${R.bound[j]} bound)` : '') + (R.notes[j] ? `<br>${pesc(R.notes[j])}` : '')),
    marker: { color: colorOf(COLORS.type, t), size: js.map(j => 5 + 15 * Math.sqrt((L.avg[R.row[j]] || 0) / maxAvg)), opacity: 0.75, line: { width: 0.5, color: '#333' } },
    hovertemplate: '%{hovertext}<br>%{x:.3g} FLOP/B, %{y:.3g} TFLOP/s<br>%{text}<extra>%{fullData.name}</extra>',
  }));
  const step = R.step;
  if (step && isNum(step.intensity) && isNum(step.flops) && isNum(step.step_ms) && step.step_ms > 0) {
    data.push({ type: 'scatter', mode: 'markers', name: pesc(`${step.stage} (whole step)`), x: [step.intensity], y: [step.flops / (step.step_ms * 1e9)],
      marker: { symbol: 'star', size: 16, color: '#111', line: { width: 1, color: '#fff' } },
      hovertext: [pesc(step.line)], hovertemplate: '%{hovertext}<extra></extra>' });
  }
  const xs = idx.map(j => R.intensity[j]).concat(step && isNum(step.intensity) ? [step.intensity] : []);
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
  const R = e.R;
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
