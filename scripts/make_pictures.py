"""The README's and the docs gallery's pictures, made from the example engines by the current code.

    python scripts/make_pictures.py            # or: make pictures
    python scripts/make_pictures.py --tests    # also refresh the browser tests' screenshots

Writes ``docs/images/``:

- ``report-overview.png``, ``report-layers.png`` (layer table, graph, a selected layer's details)
  and ``report-compare.png``: the HTML reports that ``make demo`` writes (``trex report`` of the
  INT8 ResNet18 engine, and of the three Q/DQ engines), opened in headless Chromium;
- ``graph.png``: ``trex draw`` of a residual block of the same engine (SVG, rendered by Chromium);
- with ``--tests``, ``tests/*.png``: the screenshots ``tests/test_report_browser.py`` and
  ``tests/test_report_readability.py`` take (``TREX_SCREENSHOTS``), which need the real engines of
  ``../shared/engines``.

Needs Playwright and Chromium (``/usr/bin/chromium`` or ``$TREX_CHROMIUM``, as the browser tests)
and Pillow (the ``docs`` extra), which stores each PNG with a 256-colour palette to keep it small.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
VIEWPORT = {"width": 1400, "height": 860}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
# The layer selected in the layers picture and the block drawn in the graph picture.
SELECTED_LAYER = "QuantizeLinear_40"  # an unfused Quantize on a residual branch
GRAPH_BEAM = "QuantizeLinear_40,2"
# The browser tests whose screenshots the gallery shows.
SCREENSHOT_TESTS = ("test_report_browser.py", "test_report_readability.py")


def _demo():
    """examples/demo.py: its engines and report commands are the pictures' (same reports)."""
    spec = importlib.util.spec_from_file_location("demo", ROOT / "examples" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _trex(*args: str) -> None:
    """Run the ``trex`` command of this checkout (argv list, no shell)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, "-m", "trex", *args], check=True, cwd=ROOT, env=env)


def chromium() -> str:
    for candidate in (os.environ.get("TREX_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.path.isfile(candidate):
            return candidate
    raise SystemExit("make_pictures: Chromium not found (apt-get install chromium, or set TREX_CHROMIUM)")


def optimise(source: Path, target: Path, max_width: int | None = None,
             max_height: int | None = None) -> int:
    """Write ``source`` as an optimised 256-colour PNG (scaled to ``max_width``, cut at
    ``max_height``); returns its size in bytes."""
    from PIL import Image

    with Image.open(source) as opened:
        image = opened.convert("RGB")
    if max_width and image.width > max_width:
        image = image.resize((max_width, round(image.height * max_width / image.width)),
                             Image.Resampling.LANCZOS)
    if max_height and image.height > max_height:
        image = image.crop((0, 0, image.width, max_height))
    palette = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    target.parent.mkdir(parents=True, exist_ok=True)
    palette.save(target, optimize=True)
    return target.stat().st_size


class Page:
    """One report page in Chromium, with a polling wait (the page's CSP forbids eval)."""

    def __init__(self, browser, path: Path, fragment: str = "", height: int = VIEWPORT["height"]):
        self.context = browser.new_context(viewport={**VIEWPORT, "height": height},
                                           device_scale_factor=1)
        self.page = self.context.new_page()
        self.page.goto(path.as_uri() + fragment)
        self.wait("() => !!window.trexReady")

    def wait(self, expression: str, arg=None, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while True:
            value = self.page.evaluate(expression, arg)
            if value:
                return value
            if time.monotonic() > deadline:
                raise SystemExit(f"make_pictures: timed out waiting for {expression}")
            self.page.wait_for_timeout(100)

    def settled(self, tab: str) -> None:
        """Every chart in view drawn (or saying why it has nothing to draw)."""
        self.wait("""(t) => { const h = window.innerHeight;
            const charts = [...document.querySelectorAll(`#tab-${t} .chart`)]
                .filter(c => { const r = c.getBoundingClientRect(); return r.top < h && r.bottom > 0; });
            return charts.length === 0 || charts.every(c => c.getAttribute('data-settled') === '1'); }""",
                  tab)
        self.page.wait_for_timeout(300)  # plotly's transitions

    def shot(self, path: Path) -> None:
        self.page.screenshot(path=str(path))

    def close(self) -> None:
        self.context.close()


def report_pictures(browser, single: Path, comparison: Path, work: Path) -> dict[str, Path]:
    import trex

    shots: dict[str, Path] = {}
    page = Page(browser, single, "#tab=overview", height=1000)
    page.settled("overview")
    shots["report-overview.png"] = work / "overview.png"
    page.shot(shots["report-overview.png"])
    page.close()

    plan = trex.EnginePlan.from_path(ROOT / "examples" / "a100-resnet18-qat")
    names = plan.df["Name"].tolist()
    row = names.index(SELECTED_LAYER)
    page = Page(browser, single, f"#tab=layers&layer={row}")
    page.wait("(n) => (document.getElementById('details-name') || {}).textContent === n", names[row])
    page.wait("""() => { const h = document.getElementById('graph-selection');
        const s = document.getElementById('graph-stage');
        if (!h || !s) return false;
        const a = h.getBoundingClientRect(), b = s.getBoundingClientRect();
        const x = a.x + a.width / 2, y = a.y + a.height / 2;
        return b.x <= x && x <= b.x + b.width && b.y <= y && y <= b.y + b.height; }""")
    page.page.wait_for_timeout(600)  # the centring animation
    shots["report-layers.png"] = work / "layers.png"
    page.shot(shots["report-layers.png"])
    page.close()

    # the summary table and the latencies per layer type of the three engines
    page = Page(browser, comparison, "#tab=compare", height=1180)
    page.wait("() => !!document.querySelector('#compare-table .vt-row')")
    page.settled("compare")
    shots["report-compare.png"] = work / "compare.png"
    page.shot(shots["report-compare.png"])
    page.close()
    return shots


def graph_picture(browser, work: Path) -> Path:
    """``trex draw`` of a residual block (a beam around SELECTED_LAYER), rendered by Chromium."""
    svg = work / "block.svg"
    _trex("draw", str(ROOT / "examples" / "a100-resnet18-qat"), "--beam", GRAPH_BEAM,
          "--color-by", "precision", "-o", str(svg))
    context = browser.new_context(viewport={"width": 1400, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    page.goto(svg.as_uri())
    box = page.evaluate("""() => { const s = document.querySelector('svg');
        const r = s.getBoundingClientRect(); return [r.x + r.width, r.y + r.height]; }""")
    page.set_viewport_size({"width": min(1400, int(box[0]) + 8),  # the whole drawing
                            "height": min(1800, int(box[1]) + 8)})
    out = work / "graph.png"
    page.screenshot(path=str(out), full_page=False)
    context.close()
    return out


def test_screenshots(work: Path) -> dict[str, Path]:
    """Run the browser tests with TREX_SCREENSHOTS set; their PNGs, by name."""
    folder = work / "tests"
    folder.mkdir()
    env = {**os.environ, "TREX_SCREENSHOTS": str(folder),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    *(str(ROOT / "tests" / name) for name in SCREENSHOT_TESTS)],
                   check=True, cwd=ROOT, env=env)
    return {f"tests/{p.name}": p for p in sorted(folder.glob("*.png"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", action="store_true",
                        help="also refresh docs/images/tests/ from the browser tests' screenshots")
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder of the pictures")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    demo = _demo()
    with tempfile.TemporaryDirectory(prefix="trex-pictures-") as tmp:
        work = Path(tmp)
        reports = [cmd for _, cmd in demo.steps(work) if cmd[0] == "report"]
        for command in reports:  # the demo's two reports, written by this checkout's trex
            _trex(*command)
        single, comparison = (Path(cmd[cmd.index("-o") + 1]).resolve() for cmd in reports)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
            try:
                shots = report_pictures(browser, single, comparison, work)
                shots["graph.png"] = graph_picture(browser, work)
            finally:
                browser.close()
        if args.tests:
            shots.update(test_screenshots(work))
        written: dict[bytes, str] = {}
        for name, source in shots.items():
            tests = name.startswith("tests/")
            target = args.out / name
            size = optimise(source, target, max_width=1000 if tests else None,
                            max_height=2400 if tests else None)
            data = target.read_bytes()
            if data in written:  # e.g. the hostile page with and without its CSP: one picture
                target.unlink()
                print(f"{target}: the same picture as {written[data]}")
                continue
            written[data] = name
            print(f"{target}: {size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
