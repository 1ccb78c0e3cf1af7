"""Write the report page's TypeScript declarations of its layer columns from their declaration.

    python scripts/make_js_types.py     # or: make js-types

``src/trex/html_report/assets/js/layer-columns.d.ts`` is generated from
``trex.html_report.layer_columns.LAYER_COLUMNS`` (:func:`trex.html_report.column_spec.typescript`):
run this after changing a declaration; ``tests/test_report_columns.py`` fails until the file is
current, and ``make typecheck-js`` then checks the page's script against it.
"""

from __future__ import annotations

from trex.html_report.column_spec import JS_TYPES_FILE, write_typescript


def main() -> int:
    """Write the file if it changed; say which."""
    changed = write_typescript()
    print(f"{JS_TYPES_FILE}: {'written' if changed else 'already current'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
