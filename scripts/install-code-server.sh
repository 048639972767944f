#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3) into .cache/code-server for the e2e tier.
# The npm package downloads ripgrep from GitHub during postinstall; this machine has no
# GitHub, so we seed @vscode/ripgrep's download cache with Debian's /usr/bin/rg first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$root/.cache/code-server"
version="4.100.3"
bin="$prefix/node_modules/.bin/code-server"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version"; then
  echo "code-server $version already installed at $bin"
  exit 0
fi

need=()
command -v rg >/dev/null || need+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing system packages: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

# @vscode/ripgrep 1.15.11 (inside code-server 4.100.3) looks here before it downloads.
cache="/tmp/vscode-ripgrep-cache-1.15.11"
tarball="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$tarball" ]; then
  mkdir -p "$cache"
  staging="$(mktemp -d)"
  cp "$(command -v rg)" "$staging/rg"
  tar -C "$staging" -czf "$tarball" rg
  rm -rf "$staging"
fi

mkdir -p "$prefix"
[ -f "$prefix/package.json" ] || echo '{"name":"code-server-host","private":true}' > "$prefix/package.json"
echo "installing code-server@$version (takes a few minutes)"
npm_config_yes=true npm_config_unsafe_perm=true \
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "code-server@$version"
"$bin" --version
