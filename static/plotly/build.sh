#!/usr/bin/env bash
# Rebuild static/plotly/plotly-bpe.min.js: plotly.js with only the trace types
# the playground draws (scatter, heatmap, scattergeo), bundled from the
# npm package's lib/ entry points with esbuild, as plotly.js's own build does.
# Development only: the app and its tests never need npm or a network.
#
#   bash static/plotly/build.sh     (then update the SHA-256 in README.md here)
#
# The version must match what the installed plotly.py expects:
#   python -c "import plotly.offline as o; print(o.get_plotlyjs_version())"
set -euo pipefail
PLOTLYJS_VERSION=4.1.1
ESBUILD_VERSION=0.28.2
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cd "$WORK"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts "plotly.js@$PLOTLYJS_VERSION" "esbuild@$ESBUILD_VERSION" >/dev/null
cat > entry.js <<'JS'
var Plotly = require('plotly.js/lib/core');
Plotly.register([
    require('plotly.js/lib/heatmap'),
    require('plotly.js/lib/scattergeo'),
]);  // scatter is in core
module.exports = Plotly;
JS
# The settings of plotly.js's esbuild-config.js that apply to these traces (no WebGL; the only CSS import is maplibre's, for map traces, left out).
npx esbuild entry.js --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
    --define:global=window --define:define.amd=false --define:process.env.NODE_DEBUG=false \
    --loader:.css=empty --legal-comments=none --banner:js="/*! plotly.js v$PLOTLYJS_VERSION (MIT, see LICENSE): core, heatmap, scattergeo. Built by static/plotly/build.sh. */" \
    --outfile="$HERE/plotly-bpe.min.js"
cp node_modules/plotly.js/LICENSE "$HERE/LICENSE"
sha256sum "$HERE/plotly-bpe.min.js"
