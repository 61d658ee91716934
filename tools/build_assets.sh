#!/usr/bin/env bash
# Rebuild the vendored assets from registry packages (npm), pinned in tools/assets/package-lock.json.
# The results are committed, so running the dashboard needs neither node nor the network.
set -euo pipefail
cd "$(dirname "$0")/assets"
npm ci --no-audit --no-fund
top=../..

# Bootstrap's CSS: dbc.themes would link a CDN.
mkdir -p "$top/assets/bootstrap"
grep -v sourceMappingURL node_modules/bootstrap/dist/css/bootstrap.min.css > "$top/assets/bootstrap/bootstrap.min.css"

# Plotly.js with only the traces the dashboard draws; Dash uses a window.Plotly found in assets/
# instead of loading its full 4.8 MB bundle. The version matches plotly.py's.
mkdir -p "$top/assets/plotly"
npx esbuild plotly-entry.js --bundle --minify --format=iife --global-name=Plotly --legal-comments=none \
  --define:global=window --loader:.css=empty --log-level=warning --outfile="$top/assets/plotly/plotly-custom.min.js"
# Geo traces (not bundled) would fetch map data from plotly's CDN by default: point that default home.
sed -i 's#"https://cdn.plot.ly/un/"#"/assets/topojson/"#' "$top/assets/plotly/plotly-custom.min.js"

# The explanation's formulas, typeset to SVG once, so the page loads no MathJax.
rm -rf "$top/dashboard/content/rendered"
node render-math.js "$top/dashboard/content" "$top/dashboard/content/rendered"  # Markdown + LaTeX -> HTML + SVG
