#!/usr/bin/env bash
# A project interpreter for the tests of the code that runs in the user's interpreter (the pytest
# plugin, the warm server and its children, the script runner): a venv of pyenv's CPython X.Y
# (the newest X.Y.* build under $PYENV_ROOT/versions), with pytest 8 installed into it from PyPI
# (and no pip of its own), kept once per machine under ~/.cache/heal-ls-dev/project-python/X.Y/
# (HEAL_PROJECT_PYTHON_CACHE: elsewhere; not in the checkout, which every clean clone paid ~30 s
# of CPU to make again). Nothing outside that folder is installed or changed.
#
#   scripts/project_python/setup.sh 3.8          # prints the venv's python
#   scripts/project_python/setup.sh --build 3.8  # prints the pyenv build's own python, no venv
#
# Exits 3, saying why on stderr, when pyenv has no X.Y build here. A second run only checks the
# stamp (the build's full version and the pytest pin).
set -euo pipefail

BUILD_ONLY=""
if [ "${1:-}" = --build ]; then BUILD_ONLY=1; shift; fi
VERSION="${1:?usage: setup.sh [--build] X.Y}"
MACHINE_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/heal-ls-dev"
CACHE="${HEAL_PROJECT_PYTHON_CACHE:-$MACHINE_CACHE/project-python}/$VERSION"
VERSIONS="${PYENV_ROOT:-$HOME/.pyenv}/versions"
PYTEST="pytest>=8,<9"

BUILD="$(ls -d "$VERSIONS/$VERSION".* 2>/dev/null | grep -E "/$VERSION\.[0-9]+$" | sort -V | tail -n 1 || true)"
if [ -z "$BUILD" ] || [ ! -x "$BUILD/bin/python$VERSION" ]; then
  echo "no pyenv build of Python $VERSION under $VERSIONS (pyenv install $VERSION makes one)" >&2
  exit 3
fi
if [ -n "$BUILD_ONLY" ]; then
  echo "$BUILD/bin/python$VERSION"
  exit 0
fi
VENV="$CACHE/venv"
STAMP="$CACHE/.stamp-$(basename "$BUILD")-$PYTEST"
# One maker at a time (two test workers may ask for one version at once: tests/e2e's
# test_project_python and test_setups' rows of that version): the others wait, then find it made.
mkdir -p "$(dirname "$CACHE")"
exec 9>"$CACHE.lock"
flock 9
if [ -f "$STAMP" ] && [ -x "$VENV/bin/python" ]; then
  echo "$VENV/bin/python"
  exit 0
fi
rm -rf "$CACHE"
mkdir -p "$CACHE"
# No pip in the venv: the build's own pip installs into it (pip >= 22.3 has --python), which
# skips ensurepip's copy of pip (13 -> 4 s of CPU a version); else the venv's own pip, as before.
BUILD_PY="$BUILD/bin/python$VERSION"
if ! { "$BUILD_PY" -m venv --without-pip "$VENV" &&
  "$BUILD_PY" -m pip --python "$VENV/bin/python" install -q --disable-pip-version-check "$PYTEST" >&2; }; then
  rm -rf "$VENV"
  "$BUILD_PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$PYTEST" >&2
fi
"$VENV/bin/python" -c "import sys, pytest; assert '%d.%d' % sys.version_info[:2] == '$VERSION'"
touch "$STAMP"
echo "$VENV/bin/python"
