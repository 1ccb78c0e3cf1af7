// @ts-check
/* The overview tab: headline cards, latency charts, timings, configuration. */

// ================================================================== overview tab
/**
 * The `input NAME [profile K]` header rows as a table: tensor, profile, min, opt, max shapes and
 * format (the row text is "min [...], opt [...], max [...], FORMAT").
 * @param {[string, any][]} rows
 */
function ioProfileTable(rows) {
  const out = rows.map(([key, value]) => {
    const head = /^(\S+) (.*) \[profile (\d+)\]$/.exec(key);
    const shape = /^min (\[[^\]]*\]), opt (\[[^\]]*\]), max (\[[^\]]*\])(?:, (.*))?$/.exec(String(value));
    return head && shape ? [head[2], head[1], Number(head[3]), shape[1], shape[2], shape[3], shape[4] || '']
      : [key, '', null, String(value), '', '', ''];
  });
  return h('div', { class: 'scroll-box' }, plainTable(['tensor', 'mode', 'profile', 'min', 'opt', 'max', 'format'], out));
}

/** The layer-sum vs measured comparison: figures with their units, then the explanation. @param {Object<string, any>} gap */
function layerGap(gap) {
  const dl = h('dl', { class: 'kv' });
  for (const key of Object.keys(gap)) {
    if (key === 'explanation') continue;
    let v = gap[key];
    if (key === 'sum_of_layers_ms' && !gap.timed_layers) v = null; // no layer was timed: unknown, not 0
    const [label, text] = unitPair(key, v);
    dl.append(h('dt', { text: label }), h('dd', { text: v == null ? MISSING : text }));
  }
  const why = Array.isArray(gap.explanation) ? gap.explanation : [];
  return h('div', null, [dl, why.length ? h('ul', { class: 'tight explanation' }, why.map(w => h('li', { text: String(w) }))) : null]);
}

/** Above this many I/O tensors, the rest fold under "N more". */
const IO_SHOWN = 6;

/**
 * An engine's inputs or outputs, one tensor per line and each whole (a long one wraps, none is
 * cut); past IO_SHOWN the rest fold under "N more".
 * @param {string[]} tensors @param {string} id
 */
function ioList(tensors, id) {
  if (!tensors.length) return MISSING;
  const line = t => h('div', { class: 'io-tensor mono', text: t });
  const box = h('div', { class: 'io-list', id }, tensors.slice(0, IO_SHOWN).map(line));
  if (tensors.length > IO_SHOWN) {
    const rest = tensors.slice(IO_SHOWN);
    box.append(h('details', { class: 'io-more' }, [h('summary', { text: `${rest.length} more` }), ...rest.map(line)]));
  }
  return box;
}

function buildOverview(sec, e) {
  const d = e.d;
  const hd = d.headline;
  const page = h('div', { class: 'page' });
  sec.append(page);
  page.append(h('div', { class: 'title-row' }, [h('h1', { id: 'engine-name', text: d.name }), h('span', { class: 'muted mono', text: d.path })]));
  const model = d.builder.Model || d.builder.model || d.builder['ONNX Model'] || '';
  const dev = d.device;
  const perf = d.performance;
  const cards = h('div', { class: 'cards' });
  const card = (title, big, pairs, note, caution) => {
    const c = h('div', { class: 'card' }, [h('h3', { text: title })]);
    if (big) c.append(h('div', { class: 'big', text: big }));
    c.append(kvListFrom(pairs));
    if (note) c.append(h('p', { class: 'card-note', text: note }));
    if (caution) c.append(h('p', { class: 'card-note caution', id: 'profile-caution', text: caution }));
    cards.append(c);
  };
  // A figure the inputs do not provide is shown as a dash, never as 0.
  const ms = v => isNum(v) ? `${fmtMs(v)} ms` : MISSING;
  card('Model', null, [['Engine', d.name], ['Model', model], ['Format', d.builder.Format || ''], ['Inputs', ioList(hd.inputs, 'model-inputs')], ['Outputs', ioList(hd.outputs, 'model-outputs')], ['Batch', hd.batch_size == null ? MISSING : fmtValue(hd.batch_size)], ['TensorRT', hd.tensorrt_version || '']]);
  const devRows = hd.device_rows || {};
  card('Device', devRows.Device || 'unknown', Object.entries(devRows).filter(([k]) => k !== 'Device'));
  const measured = isNum(hd.average_time_ms) ? ms(hd.average_time_ms)
    : isNum(hd.latency_median_ms) ? `${ms(hd.latency_median_ms)} (trtexec median)` : MISSING;
  card('Latency', measured, [
    ['Sum of layer averages', isNum(hd.average_time_ms) ? ms(hd.average_time_ms) : `${MISSING} (no per-layer profile: --exportProfile)`],
    ['trtexec median latency', ms(hd.latency_median_ms)],
    ['trtexec GPU compute median', ms(hd.gpu_compute_median_ms)],
    ['Throughput', isNum(hd.throughput_qps) ? `${fmtNum(hd.throughput_qps)} qps` : MISSING],
    ['Profiled iterations', hd.profile_iterations == null ? MISSING : fmtValue(hd.profile_iterations)],
    ['Timed iterations', d.timings.available ? fmtNum(d.timings.iterations) + (d.timings.warmup_iterations ? ` (${fmtNum(d.timings.warmup_iterations)} warm-up left out)` : '') : MISSING]],
  (hd.rows || {})['Profiled with'] ? `Profiled with ${(hd.rows || {})['Profiled with']}.` : '',
  hd.profile_caution ? `Caution: ${hd.profile_caution}.` : '');
  card('Layers', INT.format(hd.layers), [['Types', String(new Set(e.L.type).size)], ['Precisions', hd.precision_text],
    ['Streams', hd.streams > 1 ? fmtValue(hd.streams) : ''], ['Profiles', (hd.profiles || []).length > 1 ? `${hd.profiles.join(', ')} (showing ${hd.profile_id})` : ''],
    ['Layer information', hd.detailed ? 'detailed' : 'names only'],
    ['ONNX node names', hd.onnx_sources]]);
  const bytes = v => isNum(v) ? fmtBytes(v) : MISSING;
  card('Memory', isNum(hd.weights_bytes) ? `${fmtBytes(hd.weights_bytes)} weights` : `${MISSING} weights`, [
    ['Weights', (isNum(hd.weights_bytes) ? fmtBytes(hd.weights_bytes) : `${MISSING} (not in these exports)`)
      + ((hd.weights_not_exported || []).length ? ` + not exported in ${hd.weights_not_exported.length} Myelin layer(s)` : '')],
    ['Activations (per-layer I/O, TREx)', bytes(hd.activations_bytes)], ['Activation footprint (each tensor once)', bytes(hd.activation_footprint_bytes)]]);
  const F = d.lint.rows;
  /** @type {Object<string, number>} */
  const sev = { error: 0, warning: 0, info: 0 };
  F.severity.forEach(c => { sev[F.texts[c]] = (sev[F.texts[c]] || 0) + 1; });
  card('Linter findings', String(F.row.length), [['Errors', String(sev.error)], ['Warnings', String(sev.warning)], ['Info', String(sev.info)]]);
  page.append(cards);
  if (d.warnings.length) {
    const det = h('details', { class: 'warnings', id: 'warnings' });
    if (d.warnings.length <= 5) det.open = true;
    det.append(h('summary', { text: `${d.warnings.length} validation warning${d.warnings.length > 1 ? 's' : ''}` }));
    det.append(h('ul', null, d.warnings.map(w => h('li', { text: w }))));
    page.append(det);
  }
  if (d.transformer) page.append(transformerSection(d.transformer));
  page.append(h('h2', { text: 'Latency' }));
  const g1 = h('div', { class: 'grid2' });
  page.append(g1);
  pyFigure(g1, d.figures.latency_by_type);
  chartCard(g1, 'Slowest layers', () => slowestFigure(e, 20), { id: 'slowest', onClick: pickLayer(e.k), none: 'No profile: no latencies.' });
  pyFigure(g1, d.figures.precision_rollup);
  pyFigure(g1, d.figures.precision_per_type);
  page.append(h('h2', { text: 'Timings over iterations' }));
  const T = d.timings;
  if (T.available) {
    const g2 = h('div', { class: 'grid2' });
    page.append(g2);
    pyFigure(g2, d.figures.timings, { id: 'timings', wide: true });
    const box = h('div', { class: 'chart-card wide' }, [h('h3', { text: 'Percentiles (ms, trtexec rule)' })]);
    box.append(h('div', { class: 'scroll-box' }, frameTable(T.percentiles)));
    if (T.flags.length) box.append(h('ul', { class: 'flags' }, T.flags.map(f => h('li', { text: f }))));
    else box.append(h('p', { class: 'note', text: 'No timing flag raised (host-bound, transfers, instability, slow start, drift).' }));
    g2.append(box);
  } else {
    page.append(h('p', { class: 'note', text: 'No per-iteration timings (--exportTimes) were given for this engine.' }));
  }
  page.append(h('h2', { text: 'Engine configuration' }));
  const shapes = Object.entries(hd.rows || {}).filter(([k]) => k.includes(' [profile '));
  if (shapes.length) page.append(h('details', { class: 'section', id: 'io-profiles', open: true }, [h('summary', { text: 'I/O tensors per optimisation profile' }), ioProfileTable(shapes)]));
  const sections = [['Builder configuration', d.builder], ['Device properties', d.device], ['Performance summary (trtexec)', hd.performance_rows || d.performance], ['Inference options', d.inference]];
  for (const [title, obj] of sections) {
    if (!obj || !Object.keys(obj).length) continue;
    page.append(h('details', { class: 'section' }, [h('summary', { text: title }), kvList(obj)]));
  }
  const gap = d.timings.layer_gap;
  if (gap && Object.keys(gap).length) {
    page.append(h('details', { class: 'section', id: 'layer-gap' }, [h('summary', { text: 'Sum of layers vs measured GPU time' }), layerGap(gap)]));
  }
  void perf;
}

/**
 * The transformer view: the blocks in one line, the step's bandwidth against the GPU's peak, the
 * blocks table, latency per family and why the layer sum differs from the measured time.
 * @param {TransformerJSON} t
 */
function transformerSection(t) {
  const box = h('section', { class: 'section', id: 'transformer' });
  box.append(h('h2', { text: 'Transformer blocks' }));
  box.append(h('p', { id: 'transformer-text', text: t.text }));
  if (t.bandwidth) {
    const b = t.bandwidth;
    box.append(h('p', { class: 'big-line', id: 'decode-bandwidth', text: b.line }));
    box.append(h('p', { class: 'note', text: `Bytes per ${b.stage === 'decode' ? 'step' : 'run'}: weights ${fmtBytes(b.weights_bytes)} + KV cache ${fmtBytes(b.kv_cache_bytes)} + activations ${fmtBytes(b.activation_bytes)}; time: ${b.time_source}.` }));
  }
  box.append(h('div', { class: 'scroll-box', id: 'transformer-blocks' }, frameTable(t.blocks)));
  box.append(h('h3', { text: 'Latency by family' }));
  box.append(h('div', { class: 'scroll-box', id: 'transformer-families' }, frameTable(t.families)));
  const why = Array.isArray(t.gap.explanation) ? t.gap.explanation : [];
  if (why.length) {
    box.append(h('h3', { text: 'Sum of layers vs measured GPU time' }));
    box.append(h('ul', { class: 'tight explanation', id: 'transformer-gap' }, why.map(w => h('li', { text: String(w) }))));
  }
  return box;
}
