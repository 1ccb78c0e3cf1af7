"""The report's per-layer columns: one declaration each, in the layer table's order.

The payload's ``layers`` block, the page's TypeScript types and its layer table all follow from
:data:`LAYER_COLUMNS` (:mod:`~trex.html_report.column_spec`). A new column is one
:class:`~trex.html_report.column_spec.Column` here, reading a fact the plan has (a ``plan.df``
column or a layer attribute; add it to the model first if it has not), then ``make js-types`` to
write the page's declarations again (``tests/test_report_columns.py`` says when they are stale).
A column with ``show`` is a table column; the others are data for the layer details, the charts
and the search, which keep their own layout.
"""

from __future__ import annotations

from ..onnx_map import layer_nodes
from .column_spec import Column, Show, df_column, layer_attribute, table_column

LAYER_COLUMNS: tuple[Column, ...] = (
    Column("idx", "the row's position in plan.df (the table's #)", None, "row",
           show=Show("#", "44px", min="36px", fit=70, num=True, keep=True)),
    Column("name", "the layer's name", df_column("Name"), "text",
           show=Show("Name", "minmax(240px, 3fr)", min="120px", fit=560, squeeze=True,
                     sort="lower", title="text")),
    Column("type", "the layer's type", df_column("type"), "text",
           show=Show("Type", "110px", min="64px", fit=180, keep=True, title="detail",
                     other="subtype")),
    Column("subtype", "TensorRT's layer type (LayerType)", df_column("subtype"), "coded"),
    Column("precision", "the precision of its first input", df_column("precision"), "coded",
           show=Show("Precision", "84px", min="64px", fit=120, keep=True, text="precision",
                     title="flow", other="out_precision")),
    Column("out_precision", "the precision of its first output", df_column("output_precision"),
           "coded"),
    Column("math", 'the math its kernel runs (TF32 HMMA, FP32 FFMA, ...), "" when unknown',
           df_column("math_precision"), "coded",
           show=Show("Math", "92px", min="64px", fit=130, keep=True,
                     tip="The math its kernel runs (from the tactic name)", title="text",
                     blank="unknown: the tactic name does not say")),
    Column("avg", "average latency (ms), null when not profiled", df_column("latency.avg_time"),
           "floats",
           show=Show("Latency ms", "92px", min="64px", fit=130, keep=True, num=True,
                     tip="Average latency (ms)", text="ms")),
    Column("median", "median latency (ms)", df_column("latency.median_time"), "floats"),
    Column("time", "total latency over the profiling run (ms)", df_column("latency.time"),
           "floats"),
    Column("pct", "share of the summed layer latency (%)", df_column("latency.pct_time"), "floats",
           show=Show("%", "60px", min="44px", fit=80, keep=True, num=True,
                     tip="Share of the engine latency (%)", text="fixed2")),
    Column("weights", "weights bytes", df_column("weights_size"), "ints",
           show=Show("Weights", "82px", fit=120, num=True, text="bytes")),
    Column("io", "input + output tensor bytes", df_column("total_io_size_bytes"), "ints",
           show=Show("Activations", "92px", fit=130, num=True, tip="Input + output tensor bytes",
                     text="bytes")),
    Column("footprint", "weights + activations bytes", df_column("total_footprint_bytes"), "ints"),
    Column("tactic", "the kernel TensorRT chose", df_column("tactic"), "coded",
           show=Show("Tactic", "minmax(160px, 2fr)", min="160px", fit=520, title="text")),
    Column("stream", "its CUDA stream (0 when not exported)", layer_attribute("stream"), "ints"),
    Column("onnx", "the ONNX nodes it runs", table_column(layer_nodes, "onnx_nodes"),
           "coded_lists",
           show=Show("ONNX nodes", "minmax(160px, 2fr)", min="160px", fit=360, text="list",
                     sort="text", title="lines")),
    Column("onnx_source", 'where the ONNX nodes come from: "Metadata", "name" or "none"',
           table_column(layer_nodes, "source"), "coded"),
    Column("onnx_ops", "the ONNX op types of those nodes", table_column(layer_nodes, "onnx_ops"),
           "coded_lists"),
)
