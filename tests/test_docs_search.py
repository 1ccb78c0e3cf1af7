"""The documentation site searches when opened from ``file://``, with no network: built with
``mkdocs build --strict`` as ``make docs`` builds it, opened in Chromium, "reformat" typed in the
search box, results listed (Material's worker runs through docs/javascripts/file-worker.js)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import require_module
from test_report_browser import VIEWPORT, browser  # noqa: F401  (the Chromium fixture)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    require_module("mkdocs")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "--site-dir", str(out)], cwd=ROOT, capture_output=True, text=True,
                         env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin",
                              "HOME": str(out)}, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    return out


def test_site_needs_no_network(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) > 40
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "unpkg.com" not in text and "fonts.googleapis" not in text, page
    assert (site / "search" / "search_index.js").is_file()
    assert (site / "javascripts" / "file-worker.js").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("page", ["index.html", "cli/draw.html"])
def test_search_finds_reformat_from_file_url(site, browser, page):  # noqa: F811
    context = browser.new_context(viewport=VIEWPORT)
    requests: list[str] = []
    tab = context.new_page()
    tab.on("request", lambda r: requests.append(r.url))
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    try:
        tab.goto((site / page).as_uri())
        tab.click(".md-search__input")
        tab.keyboard.type("reformat")  # as a reader types: the search runs on key presses
        tab.wait_for_function(
            "() => document.querySelectorAll('.md-search-result__item').length > 0", timeout=20000)
        meta = tab.inner_text(".md-search-result__meta")
        titles = tab.eval_on_selector_all(".md-search-result__item h1, .md-search-result__item h2",
                                          "els => els.map(e => e.textContent)")
        links = tab.eval_on_selector_all(".md-search-result__link", "els => els.map(e => e.href)")
    finally:
        context.close()
    assert "matching document" in meta and int(meta.split()[0]) >= 5, meta
    assert any("Linters" in t or "reformat" in t.lower() for t in titles), titles
    assert links and all(link.startswith("file://") for link in links)
    assert errors == []
    # Everything loaded from the file system: no request to a CDN or a font server.
    assert requests and all(url.startswith(("file://", "data:", "about:")) for url in requests), \
        [u for u in requests if not u.startswith("file://")]
