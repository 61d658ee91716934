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
