"""The documentation site stays true: CLI reference vs ``trex --help``, docstrings of the API
reference, every linter on the linters page, every TREx name placed, pictures that exist.

The site itself is built by ``make docs`` (``mkdocs build --strict``, run by ``make test``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import subprocess
import sys
from functools import cached_property
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# The modules of the API reference (docs/api/*.md): what each exports must be documented.
API_MODULES = [
    "trex", "trex.errors", "trex.model", "trex.model.plan", "trex.model.facts",
    "trex.formats.tensor_format", "trex.model.profiles", "trex.model.validation",
    "trex.model.control_flow", "trex.model.query",
    "trex.formats", "trex.formats.readers", "trex.formats.records", "trex.formats.roles",
    "trex.formats.discovery",
    "trex.formats.layer_info", "trex.formats.layer_dump", "trex.formats.profile",
    "trex.formats.export_times", "trex.formats.metadata", "trex.formats.trtexec_log", "trex.formats.log",
    "trex.formats.build_log", "trex.formats.build_records", "trex.formats.engine_layers",
    "trex.formats.tuning_cache", "trex.formats.archive", "trex.formats.combinations",
    "trex.formats.unnamed_sections", "trex.tactic_choice",
    "trex.compare", "trex.lint", "trex.compute", "trex.graph", "trex.figures", "trex.jupyter",
    "trex.html_report", "trex.excel", "trex.iteration_stats", "trex.onnx_map", "trex.tactics",
    "trex.routes", "trex.timeline", "trex.process", "trex.process.commands",
    "trex.process.python_api", "trex.safety",
]


def _cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "hooks" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _help(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "trex", *args, "--help"], capture_output=True,
                         text=True, env={"COLUMNS": "200", "PATH": "", "PYTHONPATH": str(ROOT / "src")},
                         check=True)
    return out.stdout


def _help_options(text: str) -> set[str]:
    """Option strings of an argparse help text (the lines that describe options)."""
    found: set[str] = set()
    for line in text.splitlines():
        match = re.match(r"^ {2,}(-[^ ].*?)(?: {2,}|$)", line)
        if match:
            found.update(re.findall(r"(?:^|, )(--?[A-Za-z0-9_-]+)", match.group(1)))
    return found


def _page_options(page: str) -> set[str]:
    return {name for name in re.findall(r"`(--?[A-Za-z0-9_-]+)`", page)}


def test_cli_reference_matches_help():
    ref = _cli_reference()
    pages = ref.pages()
    top = _help()
    commands = re.findall(r"^ {4}([a-z]+) ", top, flags=re.M)
    assert commands == list(ref.subtools()), commands
    assert set(pages) == {"cli/index.md", *(f"cli/{c}.md" for c in commands)}
    for command in commands:
        assert f"[`trex {command}`]({command}.md)" in pages["cli/index.md"]
    assert _page_options(pages["cli/index.md"]) == _help_options(top) == {"-h", "--help", "--version"}
    for command in commands:
        text = _help(command)
        page = pages[f"cli/{command}.md"]
        assert _page_options(page) == _help_options(text), command
        # the usage line and every positional argument of the help are on the page
        usage = " ".join(text.split("\n\n")[0].split())
        assert usage.startswith(f"usage: trex {command}")
        for positional in re.findall(r"^ {2}([A-Z_]+)\b", text, flags=re.M):
            assert f"`{positional}`" in page, (command, positional)
    # an epilog is kept with its line breaks
    assert "exit status: 0 compared (gate passed), 1 gate failed, 2 bad input" in pages["cli/compare.md"]
    assert "| `--fail-if-slower` | `PCT` |" in pages["cli/compare.md"]


def _exported(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_")
                 and (inspect.isfunction(v) or inspect.isclass(v))
                 and getattr(v, "__module__", "") == module.__name__]
    return list(names)


def _undocumented(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    missing = []
    for name in _exported(module):
        obj = getattr(module, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or \
                not getattr(obj, "__module__", "").startswith("trex"):
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(f"{module_name}.{name}")
        if not inspect.isclass(obj):
            continue
        for attr, value in vars(obj).items():
            if attr.startswith("_"):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            elif isinstance(value, property):  # its doc, else its getter's (property(f, doc=...))
                if not (value.__doc__ or "").strip():
                    missing.append(f"{module_name}.{name}.{attr}")
                continue
            elif isinstance(value, cached_property):
                value = value.func
            if inspect.isfunction(value) and not (value.__doc__ or "").strip():
                missing.append(f"{module_name}.{name}.{attr}")
    return missing


def test_every_public_api_object_has_a_docstring():
    missing = [name for module in API_MODULES for name in _undocumented(module)]
    assert missing == [], "without a docstring (mkdocstrings would leave them out):\n" + "\n".join(missing)


def test_api_pages_cover_the_modules():
    directives = set()
    for page in (DOCS / "api").glob("*.md"):
        directives.update(re.findall(r"^::: ([\w.]+)", page.read_text(), flags=re.M))
    for module in ("trex.model", "trex.formats.readers", "trex.formats.records", "trex.compare",
                   "trex.lint", "trex.compute", "trex.graph", "trex.figures", "trex.jupyter",
                   "trex.html_report", "trex.excel", "trex.iteration_stats", "trex.onnx_map", "trex.tactics",
                   "trex.routes", "trex.timeline", "trex.process", "trex.safety", "trex.errors"):
        assert module in directives, module
    for name in directives:  # every directive names something that imports
        module, _, attr = name.rpartition(".")
        try:
            importlib.import_module(name)
        except ImportError:
            assert hasattr(importlib.import_module(module), attr), name
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in (DOCS / "api").glob("*.md"):
        assert f"api/{page.name}" in nav, page.name


def test_linters_page_explains_every_linter():
    from trex.lint import LINTERS

    page = (DOCS / "linters.md").read_text()
    headings = re.findall(r"^## `([a-z-]+)`", page, flags=re.M)
    assert headings == list(LINTERS), headings
    for name, cls in LINTERS.items():
        section = page.split(f"## `{name}`", 1)[1].split("\n## ", 1)[0]
        assert f"`{cls.__name__}`" in section, name
        assert "Mitigation" in section and "Fires when" in section, name


def _trex_rows() -> list[tuple[str, str]]:
    page = (DOCS / "coming-from-trex.md").read_text()
    rows = re.findall(r"^\| `([\w.]+)` \| (.+?) \|", page, flags=re.M)
    assert len(rows) > 150, len(rows)
    return rows


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_coming_from_trex_places_every_name():
    """Each TREx name of the page: where it lives in trex (which must resolve), or "not in trex"
    (which must be true, so that the page is updated when the name arrives)."""
    for trex_name, where in _trex_rows():
        if where.startswith(("not in trex", "moved:")):  # TREx's path itself is not in trex
            with pytest.raises((ImportError, AttributeError)):
                _resolve(f"trex.{trex_name}")
            if where.startswith("not in trex"):
                continue
        targets = re.findall(r"`(trex(?:\.\w+)*(?:\.\w+\(\))?)`", where)
        assert targets, (trex_name, where)
        for target in targets:
            _resolve(target.removesuffix("()"))
        if not where.startswith("moved:") and "attribute `plan." not in where:
            _resolve(f"trex.{trex_name}")  # a kept name works under TREx's own path
    names = {row[0] for row in _trex_rows()}
    for module in ("engine_plan", "layer", "activations", "parser", "raw_preprocessing",
                   "df_preprocessing", "misc", "graphing", "plotting", "colors", "notebook",
                   "interactive", "report_card", "compare_engines", "lint", "excel_summary",
                   "archiving"):
        assert any(n.startswith(module + ".") for n in names), module
    for method in ("df", "get_layers_by_type", "find", "get_bindings", "summary"):
        assert f"engine_plan.EnginePlan.{method}" in names, method


def test_trex_surface_is_declared_once_and_the_page_follows_it():
    """trex.compat declares TREx's module names and star-import names; the alias modules, ``from
    trex import *`` and every name the page says is kept come from that one declaration."""
    import trex
    from trex import compat

    for module in compat.MODULES:
        alias = importlib.import_module(f"trex.{module}")
        declared = compat.names_of(module)
        assert alias.__all__ == sorted(declared), module
        for name, where in declared.items():
            assert getattr(alias, name) is compat.resolve(name, where), (module, name)
    assert set(compat.STAR_NAMES) | set(compat.STAR_MODULES) <= set(trex.__all__)
    for trex_name, where in _trex_rows():
        module, _, name = trex_name.partition(".")
        kept = not where.startswith(("not in trex", "moved:"))
        if module in compat.MODULES and name and "." not in name and kept:
            assert name in compat.names_of(module), trex_name


def test_compute_page_lists_the_gpu_table():
    from trex.compute import gpu_table

    page = (DOCS / "compute.md").read_text()
    for entry in gpu_table():
        row = next((line for line in page.splitlines() if line.startswith(f"| {entry['name']} |")), None)
        assert row is not None, entry["name"]
        assert f"| {entry['bandwidth_gbs']:g} |" in row and entry["source"] in row, row


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_pictures_exist_and_stay_small():
    readme = (ROOT / "README.md").read_text()
    linked = re.findall(r"src=\"(docs/images/[\w./-]+\.png)\"", readme)
    assert len(linked) >= 4, linked
    gallery = (DOCS / "gallery.md").read_text()
    in_gallery = re.findall(r"\]\((images/[\w./-]+\.png)\)", gallery)
    for path in {*linked, *(f"docs/{p}" for p in in_gallery)}:
        png = ROOT / path
        assert png.is_file(), path
        width, height = _png_size(png)
        assert 600 <= width <= 2000 and 300 <= height <= 3000, (path, width, height)
        assert png.stat().st_size <= 400_000, (path, png.stat().st_size)
    assert {Path(p).name for p in linked} <= {Path(p).name for p in in_gallery}
