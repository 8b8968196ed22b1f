#!/usr/bin/env bash
# An older CPython for the tests of the code that runs in the user's interpreter (the pytest
# plugin, the warm server and its children, the script runner): Debian bullseye's python3.9,
# unpacked under .cache/old-python/ (no system package is installed or changed; apt runs with
# its own source list and state in that folder), with pytest installed for it from PyPI.
# Prints the wrapper's path. A second run only checks the stamp.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${HEAL_OLD_PYTHON_CACHE:-$ROOT/.cache/old-python}"
PREFIX="$CACHE/root"
WRAPPER="$CACHE/bin/python3.9"
STAMP="$CACHE/.stamp-3.9-1"
PIP="${PIP:-$ROOT/.venv/bin/pip}"

if [ -f "$STAMP" ] && [ -x "$WRAPPER" ]; then
  echo "$WRAPPER"
  exit 0
fi
mkdir -p "$CACHE"/apt/{lists/partial,cache/archives/partial} "$CACHE/debs" "$CACHE/bin"
echo "deb http://deb.debian.org/debian bullseye main" >"$CACHE/apt/sources.list"
APT=(apt-get -q -o "Dir::Etc::SourceList=$CACHE/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$CACHE/apt/lists" -o "Dir::Cache=$CACHE/apt/cache"
  -o APT::Sandbox::User=root)
"${APT[@]}" update >/dev/null
# The interpreter, its standard library, and the three libraries bookworm no longer has.
(cd "$CACHE/debs" && "${APT[@]}" download python3.9-minimal libpython3.9-minimal \
  libpython3.9-stdlib libssl1.1 libffi7 libmpdec3 >/dev/null)
rm -rf "$PREFIX"
for deb in "$CACHE"/debs/*.deb; do dpkg-deb -x "$deb" "$PREFIX"; done
cat >"$WRAPPER" <<EOF
#!/bin/sh
# Debian bullseye's python3.9, unpacked in $PREFIX (see scripts/old_python/setup.sh).
LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \\
PYTHONHOME="$PREFIX/usr" exec "$PREFIX/usr/bin/python3.9" "\$@"
EOF
chmod +x "$WRAPPER"
# Pure-Python wheels of pytest and its dependencies, for 3.9, where its site finds them (pip
# judges markers by its own interpreter: the 3.9-only dependencies are named).
"$PIP" install -q --target "$PREFIX/usr/lib/python3/dist-packages" --python-version 3.9 \
  --only-binary=:all: --implementation cp "pytest>=8,<9" exceptiongroup tomli >/dev/null 2>&1
"$WRAPPER" -c "import sys, pytest; assert sys.version_info[:2] == (3, 9)"
touch "$STAMP"
echo "$WRAPPER"
