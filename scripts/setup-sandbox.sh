#!/usr/bin/env bash
# Install bubblewrap (bwrap), the tool heal-ls builds its verification sandbox from, from the OS
# packages when it is missing. Never fails the build: without it heal-ls falls back to `unshare`
# namespaces, or refuses unisolated runs (see the README's "Sandbox" section).
set -u
command -v bwrap >/dev/null 2>&1 && exit 0
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
if command -v apt-get >/dev/null 2>&1; then
  echo "[sandbox-setup] installing bubblewrap with apt"
  export DEBIAN_FRONTEND=noninteractive  # CI has no terminal to answer a prompt
  $sudo apt-get install -y -q bubblewrap >/dev/null 2>&1 \
    || { $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q bubblewrap >/dev/null 2>&1; }
fi
command -v bwrap >/dev/null 2>&1 || echo "[sandbox-setup] bubblewrap not installed: candidates run under unshare namespaces where the OS allows, else only when allowed (heal.allowUnisolated)"
exit 0
