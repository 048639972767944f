#!/usr/bin/env bash
# `npm run demo`: the SGLang simulator playing the NaN incident, plus real VS Code (code-server)
# with the packaged extension and the simulator already listed in the Servers view.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm install --no-audit --no-fund
# Package only when something the .vsix (or the simulator it runs) is built from changed since the
# last one (vsce takes ~7 s); DEMO_REPACKAGE=1 packages anyway.
vsix=dist/inference-doctor.vsix
if [ -n "${DEMO_REPACKAGE:-}" ] || [ ! -f "$vsix" ] || [ ! -f dist/sim.js ] || [ -n "$(find src webview rules syntaxes media python scripts/build.mjs package.json README.md -newer "$vsix" -print -quit)" ]; then
  # Build here; demo.ts packages the .vsix while the incident's server loads its "weights".
  node scripts/build.mjs --production
  export DEMO_PACKAGE=1
else
  echo "$vsix is up to date with its sources"
fi
bash scripts/install-code-server.sh
exec npx tsx scripts/demo.ts "$@"
