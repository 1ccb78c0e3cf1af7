"""Search that works from ``file://``: the site's pages load trex's own worker stand-in.

mkdocs-material's offline plugin writes the search index as a script (``search/search_index.js``)
and adds a script from a CDN (``https://unpkg.com/iframe-worker/shim``) that lets the search worker
run from ``file://``. The site must open without a network, so this hook (:func:`on_post_build`)
points every page at ``javascripts/file-worker.js`` instead (docs/javascripts/file-worker.js,
written for this site), with the path relative to the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CDN_SHIM = '<script src="https://unpkg.com/iframe-worker/shim"></script>'
LOCAL_SHIM = "javascripts/file-worker.js"


def on_post_build(config: Any, **_: Any) -> None:
    """Replace the CDN's script by the site's own in every HTML page of ``site_dir``."""
    site = Path(config["site_dir"])
    if not (site / LOCAL_SHIM).is_file():
        raise FileNotFoundError(f"{site / LOCAL_SHIM}: docs/{LOCAL_SHIM} was not copied")
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if CDN_SHIM not in text:
            continue
        depth = len(page.relative_to(site).parts) - 1
        local = f'<script src="{"../" * depth}{LOCAL_SHIM}"></script>'
        page.write_text(text.replace(CDN_SHIM, local), encoding="utf-8")
