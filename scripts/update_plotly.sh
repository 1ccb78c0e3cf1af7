#!/usr/bin/env bash
# Rebuild the partial plotly.js bundle that `trex report` inlines: plotly.js's core (scatter) and
# only the trace types the report's figures use, minified, from the npm registry.
#
#   scripts/update_plotly.sh [PLOTLY_VERSION]        (needs node and npm; default: the pinned one)
#
# Writes src/trex/html_report/assets/plotly/{plotly.min.js,LICENSE,VERSION}. A new trace type in
# trex.report / trex.compare figures must be added to TRACES (tests/test_html_report.py checks
# that every figure's traces are in the bundle).
set -euo pipefail

PLOTLY_VERSION="${1:-4.1.1}"
ESBUILD_VERSION="0.28.2"
TRACES=(bar pie histogram sunburst)   # scatter is part of plotly.js's core

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/src/trex/html_report/assets/plotly"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cd "$WORK"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "plotly.js@$PLOTLY_VERSION" "esbuild@$ESBUILD_VERSION"
{
  echo "'use strict';"
  echo "var Plotly = require('plotly.js/lib/core');"
  echo "Plotly.register(["
  for trace in "${TRACES[@]}"; do echo "  require('plotly.js/lib/$trace'),"; done
  echo "]);"
  echo "module.exports = Plotly;"
} > entry.js

BANNER="/**
* plotly.js v$PLOTLY_VERSION, partial bundle for trex report: core (scatter), ${TRACES[*]}
* Copyright 2012-2026, Plotly, Inc. All rights reserved. Licensed under the MIT license (LICENSE)
*/"
# maplibre's stylesheet is required by plotly's registry for map subplots only: not bundled.
./node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=Plotly \
  --target=es2016 --define:global=window --define:define.amd=false --loader:.css=empty \
  --legal-comments=eof --log-level=warning --banner:js="$BANNER" --outfile=plotly.min.js

if grep -q -i -e '</script' -e '<!--' plotly.min.js; then
  echo "the bundle contains '</script' or '<!--' and cannot be inlined" >&2
  exit 1
fi
mkdir -p "$DEST"
cp plotly.min.js "$DEST/plotly.min.js"
cp node_modules/plotly.js/LICENSE "$DEST/LICENSE"
TRACE_LIST="$(printf '"%s", ' scatter "${TRACES[@]}")"
cat > "$DEST/VERSION" <<JSON
{"plotly.js": "$PLOTLY_VERSION", "esbuild": "$ESBUILD_VERSION", "traces": [${TRACE_LIST%, }]}
JSON
echo "wrote $DEST/plotly.min.js ($(wc -c < "$DEST/plotly.min.js") bytes), plotly.js $PLOTLY_VERSION"
