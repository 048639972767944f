#!/usr/bin/env bash
# `npm run demo`: the SGLang simulator playing the NaN incident, plus real VS Code (code-server)
# with the packaged extension and the simulator already listed in the Servers view.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm install --no-audit --no-fund
npm run --silent package
bash scripts/install-code-server.sh
exec npx tsx scripts/demo.ts "$@"
