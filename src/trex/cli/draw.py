"""``trex draw PATH``: draw an engine graph as SVG, PNG, DOT or ONNX (TREx's flags)."""

from __future__ import annotations

import argparse
import sys
import warnings

from ..errors import TrexError
from ..model.plan import EnginePlan
from ..safety import terminal_text
from . import numbers
from .engine_args import EngineArgs
from .options import add_output_options, output_path
from .output import warn_plan
from .progress import Progress, progress

ENGINES = EngineArgs(many=False)


def parse_beam(value: str) -> tuple[str, int]:
    """``NAME,RADIUS`` (the name may itself contain commas; RADIUS >= 0)."""
    name, sep, radius = value.rpartition(",")
    try:
        if not sep or not name or int(radius) < 0:
            raise ValueError
        return name, int(radius)
    except ValueError:
        raise argparse.ArgumentTypeError(f"beam must be NAME,RADIUS (e.g. conv1,2), not {value!r}"
                                         ) from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "draw", help="draw an engine graph (SVG, PNG, DOT or ONNX)",
        description="Draw an engine graph. PATH is an engine prefix, a folder or any of its files. "
                    "--layout auto predicts Graphviz `dot`'s time from the graph (nodes, labelled "
                    "edges, long edges) and uses `dot` where it is fast, within a time budget, and "
                    "trex's own layout elsewhere (SVG, no Graphviz needed). A tensor that "
                    "feeds many layers (an attention mask) is drawn as a bus.")
    ENGINES.add_to(parser)
    parser.add_argument("--output_format", "-of", default="svg",
                        choices=["svg", "png", "dot", "onnx"], help="output format (default svg)")
    add_output_options(parser, "output file", "<folder>.<engine>.<format>")
    parser.add_argument("--display_regions", "-dr", action="store_true",
                        help="draw every memory region as a node")
    parser.add_argument("--display_constant", "-dc", action="store_true",
                        help="draw constant inputs (needs --display_regions)")
    parser.add_argument("--no_layer_names", "-no_ln", action="store_true",
                        help="do not write layer names")
    parser.add_argument("--display_metadata", "-dm", action="store_true",
                        help="write the layers' ONNX metadata instead of their names")
    parser.add_argument("--display_region_names", "-drn", action="store_true",
                        help="write region names (implies --display_regions)")
    parser.add_argument("--beam", "-b", type=parse_beam, default=None, metavar="NAME,RADIUS",
                        help="draw only the layers within RADIUS hops of layer NAME")
    parser.add_argument("--query", "-q", default=None, metavar="QUERY",
                        help="draw only the layers that match every term of QUERY, with their "
                             "neighbours: key:value (type:Reformat, precision:FP32), key:~regex "
                             "(name:~layer4), or a plain word (a regex searched in names, ONNX "
                             "nodes, types and attributes)")
    parser.add_argument("--remove_disconnected", "-rd", action="store_true",
                        help="leave out layers without tensors (shape_call, ...), as TREx did")
    parser.add_argument("--color-by", dest="color_by", default="type",
                        choices=["type", "precision", "latency"],
                        help="node colours, explained by a legend under the graph")
    parser.add_argument("--no-legend", dest="legend", action="store_false",
                        help="draw no legend (as TREx drew)")
    parser.add_argument("--latency-type", dest="latency_type", default="avg_time",
                        choices=["avg_time", "median_time", "time"])
    parser.add_argument("--layout", dest="method", default="auto",
                        choices=["auto", "dot", "own", "layered"],
                        help="auto (default): Graphviz dot where it is fast, else trex's own "
                             "layout; dot or own (alias layered) force one")
    parser.add_argument("--timeout", type=numbers.TIMEOUT,
                        default=None, metavar="SECONDS",
                        help="seconds to allow Graphviz (default: 20 with --layout auto, then "
                             "trex's own layout draws; 600 with --layout dot)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with progress("trex draw") as shown:
        (plan,) = ENGINES.load(args, lambda path: shown.step(f"loading {path}")).plans
        shown.layers(len(plan.rows))
        shown.clear()
        return _draw(args, plan, shown)


def _draw(args: argparse.Namespace, plan: EnginePlan, shown: Progress) -> int:
    from .. import graph

    warn_plan(plan.name, plan)
    if args.display_constant and not (args.display_regions or args.display_region_names):
        print("warning: --display_constant has no effect without --display_regions",
              file=sys.stderr)
    target = plan
    if args.beam is not None:
        name, radius = args.beam
        target = graph.beam(plan, name, radius)
    if args.query is not None:
        target = graph.query(target, args.query)
        if not target.highlighted:
            raise TrexError(f"no layer matches {args.query!r}")
    fmt = args.output_format
    out = output_path(args, lambda: graph.drawing.default_output(target, fmt))
    if fmt == "onnx":
        try:
            path = graph.export_onnx(target, out)
        except ImportError:
            raise TrexError("ONNX export needs the onnx package: "
                            "pip install 'trex-explorer[graph]'") from None
        print(terminal_text(f"Created file://{path} ({len(target.all_layers)} layers)"))
        return 0
    options = dict(
        display_forking_regions=True,
        display_region_reuse=True,
        display_edge_details=False,
        remove_disconnected_layers=args.remove_disconnected,
        display_regions=args.display_regions or args.display_region_names,
        display_layer_names=not args.no_layer_names,
        display_constants=args.display_constant,
        display_metadata=args.display_metadata,
        display_region_names=args.display_region_names,
    )
    shown.step(f"laying out and drawing {len(target.all_layers):,} layers")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = graph.draw_plan(target, out, fmt, color_by=args.color_by, method=args.method,
                                 latency_type=args.latency_type, timeout=args.timeout,
                                 legend=args.legend, **options)
    shown.clear()
    if result.note:
        print(terminal_text(f"note: {result.note}"), file=sys.stderr)
    how = {"dot": "Graphviz dot", "layered": "trex's own layout", "source": "DOT source"}
    print(terminal_text(f"Created file://{result.path} ({result.nodes} nodes, {result.edges} "
                        f"edges, {how[result.method]}, {result.seconds:.2f} s)"))
    return 0
