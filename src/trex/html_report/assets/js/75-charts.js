// @ts-check
/* The charts tab. */

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
  if (R.step) page.append(h('p', { class: 'note', id: 'roofline-step', text: `The whole ${R.step.stage === 'decode' ? 'decode step' : 'run'} (a star on the roofline): ${R.step.line}.` }));
  const g3 = h('div', { class: 'grid2' });
  page.append(g3);
  chartCard(g3, 'Roofline', () => rooflineFigure(e), { id: 'roofline', tall: true, onClick: pickLayer(e.k), none: 'No layer with a compute model and a latency.' });
  chartCard(g3, 'Convolution / GEMM efficiency', () => efficiencyFigure(e), { id: 'efficiency', tall: true, onClick: pickLayer(e.k), none: 'No convolution or GEMM layer with a latency.' });
  page.append(h('h2', { text: 'Tactics' }));
  page.append(h('div', { class: 'scroll-box' }, frameTable(d.tactics, { format: { latency_pct: v => isNum(v) ? v.toFixed(2) : '–', latency_ms: v => isNum(v) ? v.toFixed(4) : '–' } })));
}
