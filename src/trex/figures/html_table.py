"""A self-contained interactive HTML table: click a header to sort, type to search or filter columns.

No server and no external script: a few lines of inline JavaScript. Where scripts do not run (an
untrusted notebook) the table is still shown, static.
"""

from __future__ import annotations

import html
import math
import numbers
import uuid
from typing import Any

import numpy as np
import pandas as pd

MAX_ROWS = 5000

_STYLE = """<style>
.trex-table {font-family: sans-serif; font-size: 12px;}
.trex-table .trex-scroll {max-height: 600px; overflow: auto; border: 1px solid #ddd;}
.trex-table table {border-collapse: collapse; white-space: nowrap;}
.trex-table th {position: sticky; top: 0; background: #76b900; color: white; cursor: pointer;
  padding: 4px 8px; text-align: left; z-index: 1;}
.trex-table tr.trex-filters th {top: 24px; background: #f3f3f3; cursor: default; padding: 2px;}
.trex-table tr.trex-filters input {width: 100%; min-width: 50px; box-sizing: border-box;}
.trex-table td {padding: 2px 8px; border-top: 1px solid #eee; max-width: 600px;
  overflow: hidden; text-overflow: ellipsis;}
.trex-table td.num {text-align: right; font-variant-numeric: tabular-nums;}
.trex-table tbody tr:nth-child(even) {background: #fafafa;}
.trex-table tbody tr:hover {background: #eef7dd;}
</style>"""

# Filters: text matches as a substring; ">x", "<x", ">=x", "<=x", "=x" compare numbers.
_SCRIPT = """<script>
(function () {
  var root = document.getElementById("%(id)s");
  if (!root) { return; }
  var table = root.querySelector("table"), body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var search = root.querySelector("input.trex-search");
  var filters = Array.prototype.slice.call(root.querySelectorAll("input.trex-filter"));
  var count = root.querySelector(".trex-count");
  function value(row, i) {
    var c = row.cells[i];
    return c.hasAttribute("data-v") ? c.getAttribute("data-v") : c.textContent;
  }
  function matches(text, f) {
    var m = /^(>=|<=|>|<|=)\\s*(-?[0-9.eE+-]+)$/.exec(f);
    if (m) {
      var x = parseFloat(text), y = parseFloat(m[2]);
      if (isNaN(x)) { return false; }
      return {">": x > y, "<": x < y, ">=": x >= y, "<=": x <= y, "=": x === y}[m[1]];
    }
    return text.toLowerCase().indexOf(f.toLowerCase()) >= 0;
  }
  function apply() {
    var q = search.value.toLowerCase(), shown = 0;
    rows.forEach(function (row) {
      var ok = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
      filters.forEach(function (f, i) {
        var t = f.value.trim();
        if (ok && t) { ok = matches(value(row, i), t); }
      });
      row.style.display = ok ? "" : "none";
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " rows";
  }
  var order = {};
  Array.prototype.slice.call(table.tHead.rows[0].cells).forEach(function (th, i) {
    th.addEventListener("click", function () {
      var dir = order[i] = -(order[i] || -1);
      rows.sort(function (a, b) {
        var x = value(a, i), y = value(b, i), nx = parseFloat(x), ny = parseFloat(y);
        if (!isNaN(nx) && !isNaN(ny) && isFinite(x) && isFinite(y)) { return dir * (nx - ny); }
        return dir * String(x).localeCompare(String(y));
      });
      rows.forEach(function (row) { body.appendChild(row); });
      Array.prototype.slice.call(table.tHead.rows[0].cells).forEach(function (h) {
        h.textContent = h.textContent.replace(/ [\\u25B2\\u25BC]$/, "");
      });
      th.textContent += dir > 0 ? " \\u25B2" : " \\u25BC";
    });
  });
  search.addEventListener("input", apply);
  filters.forEach(function (f) { f.addEventListener("input", apply); });
}());
</script>"""


def _cell(value: Any, precision: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "<td></td>"
    if isinstance(value, (bool, np.bool_)):
        return f"<td>{bool(value)}</td>"
    if isinstance(value, numbers.Integral):
        return f'<td class="num" data-v="{int(value)}">{int(value)}</td>'
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return "<td></td>"
        if math.isinf(value):
            return f'<td class="num">{value}</td>'
        return f'<td class="num" data-v="{value!r}">{value:.{precision}f}</td>'
    text = html.escape(str(value))
    return f'<td title="{text}">{text}</td>'


def html_table(df: pd.DataFrame, max_rows: int = MAX_ROWS, precision: int = 4,
               table_id: str | None = None) -> str:
    """``df`` as one HTML fragment (style, table, script); at most ``max_rows`` rows."""
    table_id = table_id or f"trex-table-{uuid.uuid4().hex}"
    shown = df.iloc[:max_rows]
    columns = [str(c) for c in shown.columns]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    filters = "".join(f'<th><input class="trex-filter" placeholder="filter" '
                      f'aria-label="filter {html.escape(c)}"></th>' for c in columns)
    body = "\n".join("<tr>" + "".join(_cell(v, precision) for v in row) + "</tr>"
                     for row in shown.itertuples(index=False, name=None))
    note = ""
    if len(df) > max_rows:
        note = (f'<div class="trex-note">Showing the first {max_rows} of {len(df)} rows '
                "(display_df(df, max_rows=...) shows more).</div>")
    return (f'{_STYLE}<div class="trex-table" id="{table_id}">'
            f'<div><input class="trex-search" placeholder="search all columns" '
            f'aria-label="search"> <span class="trex-count">{len(shown)} rows</span></div>{note}'
            f'<div class="trex-scroll"><table><thead><tr>{head}</tr>'
            f'<tr class="trex-filters">{filters}</tr></thead>'
            f"<tbody>\n{body}\n</tbody></table></div></div>"
            + _SCRIPT % {"id": table_id})
