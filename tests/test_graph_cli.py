"""``trex draw``: TREx's flags, output formats, subgraphs and clear errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from helpers import require_module, require_program
from trex.cli import main

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def mobilenet(engines) -> str:
    return str(engines / "trex-mobilenet-qat")


def needs_dot():
    require_program("dot")


def test_help_lists_trex_flags(capsys):
    with pytest.raises(SystemExit):
        main(["draw", "--help"])
    out = capsys.readouterr().out
    for flag in ("-pj", "-of", "-dr", "-dc", "-no_ln", "-dm", "-drn", "-b", "-q", "-o",
                 "--color-by", "--layout"):
        assert flag in out


def test_default_svg_in_current_folder(mobilenet, tmp_path, monkeypatch, capsys):
    needs_dot()
    monkeypatch.chdir(tmp_path)
    assert main(["draw", mobilenet]) == 0
    out = capsys.readouterr().out
    path = tmp_path / "trex-mobilenet-qat.mobilenet.qat.onnx.engine.svg"  # folder and engine
    assert f"Created file://{path}" in out and "Graphviz dot" in out
    # TREx's draw defaults: forking regions shown, edge details hidden.
    assert "(84 nodes, 93 edges" in out
    root = ET.parse(path).getroot()
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]) == 84


@pytest.mark.parametrize("args", [
    ["-of", "png", "--color-by", "precision"],
    ["-of", "dot", "-dr", "-drn"],
    ["-of", "svg", "-no_ln", "-dm", "--color-by", "latency"],
    ["-of", "svg", "-dr", "-dc", "--layout", "layered"],
    ["-of", "onnx"],
])
def test_formats_and_flags(mobilenet, tmp_path, args, capsys):
    if "png" in args or ("svg" in args and "layered" not in args):
        needs_dot()
    if "onnx" in args:
        require_module("onnx")
    out = tmp_path / f"out.{args[1]}"
    assert main(["draw", mobilenet, "-o", str(out), *args]) == 0
    assert out.stat().st_size > 1000
    captured = capsys.readouterr()
    assert f"Created file://{out}" in captured.out
    if "-dc" in args:
        assert "--display_constant has no effect" not in captured.err
    if args[1] == "dot":
        text = out.read_text()
        assert text.startswith("digraph {") and text.count(" -> ") == 154


def test_beam_and_query(mobilenet, tmp_path, capsys):
    needs_dot()
    assert main(["draw", mobilenet, "-b", "Conv_12,2", "-o", str(tmp_path / "b.svg")]) == 0
    assert "(6 nodes, 5 edges" in capsys.readouterr().out
    assert main(["draw", mobilenet, "-q", r"GlobalAveragePool", "-o", str(tmp_path / "q.svg")]) == 0
    assert "(6 nodes, 5 edges" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["-b", "no_such_layer,1"], "no layer named 'no_such_layer'"),
    (["-q", "no_such_layer"], "no layer matches 'no_such_layer'"),
    (["-q", "("], "bad regular expression"),
])
def test_errors_exit_2(mobilenet, tmp_path, args, message, capsys):
    assert main(["draw", mobilenet, "-o", str(tmp_path / "x.svg"), *args]) == 2
    assert message in capsys.readouterr().err


def test_bad_beam_and_missing_input(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["draw", "x", "-b", "conv1"])
    assert exit_.value.code == 2
    assert "NAME,RADIUS" in capsys.readouterr().err
    assert main(["draw", str(tmp_path / "missing.graph.json")]) == 2
    assert "trex draw: error:" in capsys.readouterr().err


def test_missing_graphviz_message(mobilenet, tmp_path, monkeypatch, capsys):
    import trex.graph.render as render_module

    monkeypatch.setattr(render_module.shutil, "which", lambda name: None)
    assert main(["draw", mobilenet, "-of", "png", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "Graphviz" in err and "apt-get install graphviz" in err
    # SVG needs no Graphviz: trex's own layout takes over.
    assert main(["draw", mobilenet, "-o", str(tmp_path / "x.svg")]) == 0
    assert "trex's own layout" in capsys.readouterr().out


def test_unwritable_output(mobilenet, tmp_path, capsys):
    assert main(["draw", mobilenet, "--layout", "layered",
                 "-o", str(tmp_path / "no" / "such" / "dir.svg")]) == 2
    assert "cannot write" in capsys.readouterr().err
