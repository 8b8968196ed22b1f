#!/usr/bin/env bash
# `make package`: what a user installs, in DIST (default dist/, ignored by git):
#   heal_ls-<version>-py3-none-any.whl   (pip wheel; `pipx install` it)
#   heal-ls-<version>.vsix               (the VS Code extension; `code --install-extension` it)
# Both are built from staged copies in a temporary folder, so a build never writes into the
# checkout (build/, *.egg-info, client-vscode/dist) while tests or an editor use it.
# The .vsix carries no Python: the extension starts `<heal.interpreter> -m heal_ls serve`, the
# interpreter the wheel is installed in (see README "Install").
# Env: PYTHON (builds the wheel; default .venv/bin/python), VSCE (default npx @vscode/vsce).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$(realpath -m "${DIST:-$ROOT/dist}")"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
VSCE="${VSCE:-npx --yes @vscode/vsce}"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$DIST"
rm -f "$DIST"/heal_ls-*.whl "$DIST"/heal-ls-*.vsix

echo "[package] wheel"
mkdir "$stage/py"
cp -r "$ROOT"/{pyproject.toml,README.md,LICENSE,server} "$stage/py"
rm -rf "$stage"/py/server/*.egg-info
"$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$DIST" "$stage/py"

echo "[package] vsix"
ext="$ROOT/client-vscode"
[ -d "$ext/node_modules" ] || (cd "$ext" && npm ci --no-audit --no-fund)
mkdir "$stage/ext"
cp -r "$ext"/{package.json,README.md,LICENSE,.vscodeignore,esbuild.mjs,src} "$stage/ext"
ln -s "$ext/node_modules" "$stage/ext/node_modules"
version="$(node -p "require('$ext/package.json').version")"
(cd "$stage/ext" && node esbuild.mjs && $VSCE package --no-dependencies --out "$DIST/heal-ls-$version.vsix")
ls -l "$DIST"
