// @ts-check
/* The report's data: the JSON that trex/html_report/payload.py writes into #trex-data (and the
 * per-layer details into #trex-details-K), as JSDoc types. The files of this folder are joined in
 * name order into one function scope (page.py's page_script) and type-checked together, with
 * the declarations of *.d.ts, by `make typecheck-js` (tsc --noEmit --allowJs --checkJs).
 *
 * Every view builds DOM nodes with createElement/textContent; nothing from the data is parsed as
 * HTML, and strings given to plotly are entity-escaped (plotly renders a subset of HTML in text).
 */

/**
 * A string column written once per distinct value: `values[codes[i]]` is row i (columns.py).
 * @typedef {{values: string[], codes: number[]}} Coded
 */
/**
 * A column of string lists: `codes[i].map(c => values[c])` is row i.
 * @typedef {{values: string[], codes: number[][]}} CodedLists
 */
/** A DataFrame: column names and rows of JSON values. @typedef {{columns: string[], rows: any[][]}} Frame */
/**
 * A plotly figure from Python (trex.report / trex.compare), or why it could not be built.
 * @typedef {{title: string, figure?: {data: Object[], layout?: Object}, error?: string}} PyFigure
 */

/* The layer columns (LayerColumnsJSON as written, LayerColumns decoded, LayerColumnSpec the
 * declaration the page builds its table from) are declared in layer-columns.d.ts, generated from
 * trex/html_report/layer_columns.py (`make js-types`). */

/**
 * The laid-out engine graph (graphdata.graph_payload): colours are indices into `palette`.
 * @typedef {Object} GraphJSON
 * @property {number} width
 * @property {number} height
 * @property {string[]} palette
 * @property {string[]} ink text colour on each palette colour
 * @property {{x: number[], y: number[], w: number[], h: number[], kind: number[], row: number[],
 *   rows: number[][], text: string[], name: (string|null)[],
 *   fill: {type: number[], precision: number[], latency: number[]}, stroke: number[], pen: number[],
 *   tensor: Object<string, Tensor>}} nodes  `row` is the plan.df row (-1: not a layer); `rows` are
 *   the label rows, indices into `text`; kind: 0 layer, 1 tensor region, 2 constant, 3 sync
 * @property {{src: number[], dst: number[], color: number[], dash: number[], route: number[][],
 *   full: number[]}} edges  `route` is the flat list x0, y0, x1, y1, ... of each edge's points
 *   between its ends (bottom centre of the source, top centre of the target), or all of its points
 *   for the edges listed in `full`
 * @property {{node: number[], color: number[], edges: number[], route: number[][]}} buses  hub
 *   tensors drawn as one bus each: the hub's node, colour, edge count and the bus's flat points
 * @property {{type: [string, number, number][], precision: [string, number, number][]}} legend
 *   per colouring, [label, palette index, layers] for each fill the layers are drawn with
 * @property {number} dropped_edges
 * @property {string} layout  "dot" or "layered": which layout placed the nodes
 * @property {string} layout_note  why trex's own layout placed them (dot would be slow, or ran
 *   out of its time budget), else empty
 */

/** A tensor as a layer sees it: [name, shape, format, bytes, precision]. @typedef {[string, number[], string, number, string]} Tensor */
/** A layer's details: [attributes, inputs, outputs]. @typedef {[Object<string, any>, Tensor[], Tensor[]]} LayerDetail */
/**
 * #trex-details-K (details.LayerDetails): each distinct attribute set and tensor once.
 * @typedef {Object} DetailsJSON
 * @property {Object<string, any>[]} attrs distinct attribute sets
 * @property {number[]} attr per layer, an index into attrs
 * @property {{name: string[], shape: number[], shapes: number[][], format: Coded, bytes: number[],
 *   precision: Coded}} tensors
 * @property {number[][]} inputs per layer, indices into tensors
 * @property {number[][]} outputs
 * @property {Object<string, {family: string, about: string}>} [kinds] per layer type
 * @property {Object<string, string[][]>} [facts] per row: [label, text] pairs (LLM costs, Myelin region)
 */

/**
 * Linter findings (details.Findings): `layer` is null where it is the name of the layer at `row`.
 * @typedef {Object} FindingsJSON
 * @property {(number|null)[]} row
 * @property {(string|null)[]} layer
 * @property {string[]} texts
 * @property {number[]} linter indices into texts, as the columns below
 * @property {number[]} severity
 * @property {number[]} hazard
 * @property {number[]} evidence
 * @property {number[]} mitigation
 * @property {number[]} help
 */
/**
 * A finding decoded by the page: [row, layer, linter, severity, hazard, evidence, mitigation, help].
 * @typedef {[number|null, string, string, string, string, string, string, string]} Finding
 */

/**
 * The roofline of the layers with a compute model (payload.roofline_payload); `row` is the
 * plan.df row of each entry.
 * @typedef {Object} RooflineJSON
 * @property {string|null} gpu
 * @property {string} source
 * @property {number|null} bandwidth_gbps
 * @property {Object<string, number>} peaks_tflops
 * @property {number[]} row
 * @property {Coded} model
 * @property {Coded} roof  the roof that bounds the layer (FP32, TF32, FP16, INT8, INT8 DP4A, ...)
 * @property {(number|null)[]} macs
 * @property {(number|null)[]} flops
 * @property {number[]} bytes
 * @property {(number|null)[]} intensity
 * @property {(number|null)[]} tflops
 * @property {(number|null)[]} gbps
 * @property {(number|null)[]} attainable
 * @property {Coded} bound
 * @property {(number|null)[]} pct_roofline
 * @property {string[]} notes  why a point lies above its roof ("" when it does not)
 * @property {(number|null)[]} M
 * @property {(number|null)[]} N
 * @property {(number|null)[]} K
 * @property {StepJSON} [step]  a transformer engine's step (decode, or a memory-bound stage)
 */
/**
 * The bytes one step moves against its time and the GPU's peak bandwidth (trex.transformer
 * StepTraffic.as_dict); present only for transformer engines that are decoding or memory-bound.
 * @typedef {Object} StepJSON
 * @property {string} stage
 * @property {number} weights_bytes
 * @property {number} kv_cache_bytes
 * @property {number} activation_bytes
 * @property {number} total_bytes
 * @property {number|null} step_ms
 * @property {string} time_source
 * @property {string|null} gpu
 * @property {number|null} peak_gbs
 * @property {number|null} achieved_gbs
 * @property {number|null} pct_of_peak
 * @property {number|null} flops
 * @property {number|null} intensity
 * @property {string} line  "decode moves 402 MB per step in 0.333 ms = 1.21 TB/s, 36 % of ..."
 */
/**
 * The transformer view of one engine (payload.transformer_payload): only engines with blocks.
 * @typedef {Object} TransformerJSON
 * @property {string} text  one line: blocks, attention fused/decomposed, RoPE, KV cache, stage
 * @property {string|null} stage  "prefill", "decode" or null
 * @property {string} grouping  how blocks were delimited ("ONNX Metadata" or "structure")
 * @property {Frame} blocks  one row per block
 * @property {Frame} families  latency per family (attention, GEMM, norm, RoPE, KV cache, ...)
 * @property {StepJSON|null} bandwidth
 * @property {Object<string, any>} gap  the layer sum against the measured time, `explanation`
 */
/** The roofline with its coded columns decoded. @typedef {Omit<RooflineJSON, 'model'|'bound'> & {model: string[], bound: string[]}} Roofline */

/**
 * @typedef {Object} TimingsJSON
 * @property {boolean} available
 * @property {number} iterations  timed iterations (trtexec's warm-up left out)
 * @property {number} [warmup_iterations]  leading records inside the warm-up
 * @property {number|null} [warmup_ms]
 * @property {string[]} flags
 * @property {Object<string, any>} layer_gap
 * @property {(number|null)[]} [latency]
 * @property {(number|null)[]} [compute]
 * @property {Frame} [percentiles]
 * @property {Object<string, any>} [summary]
 */

/**
 * One engine (payload.engine_payload).
 * @typedef {Object} EngineJSON
 * @property {string} name
 * @property {string} label
 * @property {string} letter A, B, ... Z, AA, AB, ...: how the comparison names the engine
 * @property {string} path
 * @property {boolean} detailed
 * @property {Object<string, any>} headline
 * @property {Object<string, any>} device
 * @property {Object<string, any>} builder
 * @property {Object<string, any>} performance
 * @property {Object<string, any>} inference
 * @property {string[]} warnings
 * @property {LayerColumnsJSON} layers
 * @property {Frame} by_type
 * @property {Frame} by_precision
 * @property {Frame} tactics
 * @property {Frame} onnx_ops
 * @property {GraphJSON} graph
 * @property {{columns: string[], rows: FindingsJSON, notes: string[]}} lint
 * @property {RooflineJSON} roofline
 * @property {TimingsJSON} timings
 * @property {Object<string, PyFigure>} figures
 * @property {TransformerJSON} [transformer]  only for engines with transformer blocks
 */

/**
 * Several engines (payload.comparison_payload); `aligned` has one entry per aligned row and
 * `aligned.rows[k][p]` is engine k's plan.df row at aligned row p (null: not in that engine);
 * `aligned.delta[p]` is null where the first or the last engine lacks the row.
 * @typedef {Object} ComparisonJSON
 * @property {string[]} names
 * @property {Frame} summary
 * @property {Frame} by_type
 * @property {Frame} by_precision
 * @property {Frame} links
 * @property {{type: string[], match: string[], rows: (number|null)[][], ms: (number|null)[][],
 *   delta: (number|null)[], speedup: (number|null)[]}} aligned
 * @property {Frame} onnx
 * @property {string[]} onnx_without_metadata
 * @property {Frame} onnx_ops  ONNX operators of the first and last engine paired across exports
 * @property {Frame} onnx_op_types
 * @property {Object<string, PyFigure>} figures
 * @property {{table: Frame, families: Frame, gaps: Object<string, any>[]}} [stages]  transformer
 *   engines (prefill vs decode): per-stage shapes, blocks and bandwidth, latency per family, and
 *   each stage's layer-sum gap with its explanation
 */

/**
 * #trex-data (payload.report_payload).
 * @typedef {Object} ReportJSON
 * @property {number} schema
 * @property {string} generator
 * @property {string} title
 * @property {EngineJSON[]} engines
 * @property {ComparisonJSON|null} comparison
 * @property {LayerColumnSpec[]} layer_columns  every engine's `layers` columns, in the layer table's
 *   order: how each is written and, for the table's columns, how it is shown (column_spec.spec)
 * @property {{type: Object<string, string>, precision: Object<string, string>, latency: string[],
 *   none: string, unknown: string, engines: string[]}} colors  the figures' colours
 *   (figures.report_colors): every type and precision of the engines, one colour per engine
 */

/**
 * A figure for plotly: traces and layout (plotly's own JSON).
 * @typedef {{data: Object[], layout?: Object<string, any>}} Figure
 */
