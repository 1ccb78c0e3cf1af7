// GENERATED from trex/html_report/layer_columns.py by trex/html_report/column_spec.py
// (`make js-types`): do not edit. tests/test_report_columns.py checks it is current.

/** The layer columns as payload.layer_columns writes them: one entry per plan.df row. */
interface LayerColumnsJSON {
  /** the layer's name (plan.df["Name"]) */
  name: string[];
  /** the layer's type (plan.df["type"]) */
  type: string[];
  /** TensorRT's layer type (LayerType) (plan.df["subtype"]) */
  subtype: Coded;
  /** the precision of its first input (plan.df["precision"]) */
  precision: Coded;
  /** the precision of its first output (plan.df["output_precision"]) */
  out_precision: Coded;
  /** the math its kernel runs (TF32 HMMA, FP32 FFMA, ...), "" when unknown (plan.df["math_precision"]) */
  math: Coded;
  /** average latency (ms), null when not profiled (plan.df["latency.avg_time"]) */
  avg: (number | null)[];
  /** median latency (ms) (plan.df["latency.median_time"]) */
  median: (number | null)[];
  /** total latency over the profiling run (ms) (plan.df["latency.time"]) */
  time: (number | null)[];
  /** share of the summed layer latency (%) (plan.df["latency.pct_time"]) */
  pct: (number | null)[];
  /** weights bytes (plan.df["weights_size"]) */
  weights: number[];
  /** input + output tensor bytes (plan.df["total_io_size_bytes"]) */
  io: number[];
  /** weights + activations bytes (plan.df["total_footprint_bytes"]) */
  footprint: number[];
  /** the kernel TensorRT chose (plan.df["tactic"]) */
  tactic: Coded;
  /** its CUDA stream (0 when not exported) (layer.stream) */
  stream: number[];
  /** the ONNX nodes it runs (layer_nodes(plan)["onnx_nodes"]) */
  onnx: CodedLists;
  /** where the ONNX nodes come from: "Metadata", "name" or "none" (layer_nodes(plan)["source"]) */
  onnx_source: Coded;
  /** the ONNX op types of those nodes (layer_nodes(plan)["onnx_ops"]) */
  onnx_ops: CodedLists;
}

/** The same columns as the page decodes them (Engine.L). */
interface LayerColumns {
  name: string[];
  type: string[];
  subtype: string[];
  precision: string[];
  out_precision: string[];
  math: string[];
  avg: (number | null)[];
  median: (number | null)[];
  time: (number | null)[];
  pct: (number | null)[];
  weights: number[];
  io: number[];
  footprint: number[];
  tactic: string[];
  stream: number[];
  onnx: string[][];
  onnx_source: string[];
  onnx_ops: string[][];
}

/** column_spec.Encoding */
type ColumnEncoding = 'row' | 'text' | 'coded' | 'coded_lists' | 'floats' | 'ints';
/** column_spec.TextKind */
type TextKind = 'plain' | 'precision' | 'ms' | 'fixed2' | 'bytes' | 'list';
/** column_spec.SortKind */
type SortKind = 'value' | 'text' | 'lower';
/** column_spec.TitleKind */
type TitleKind = 'text' | 'lines' | 'detail' | 'flow';

/** A layer table column's presentation (column_spec.Show). */
interface ColumnShow {
  label: string;
  width: string;
  min: string | null;
  fit: number | null;
  tip: string;
  num: boolean;
  keep: boolean;
  squeeze: boolean;
  text: TextKind;
  sort: SortKind;
  title: TitleKind | null;
  other: string | null;
  blank: string | null;
}

/** A declared layer column (column_spec.spec), DATA.layer_columns. */
interface LayerColumnSpec {
  key: string;
  encoding: ColumnEncoding;
  show: ColumnShow | null;
}
