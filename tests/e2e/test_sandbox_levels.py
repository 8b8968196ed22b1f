"""Each sandbox level builds its view for real, however many folders it binds back.

The view a run gets binds back every folder the interpreter reads from under a hidden one (a
project in /tmp, a venv or pyenv build under /root or /home): a dozen binds is common. The
unshare fallback once numbered them as shell descriptors, and dash (/bin/sh on Debian and
Ubuntu) takes one digit only: from the eighth bind on it stopped with "exec: 10: not found".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from heal_ls.testing.sandbox import LEVEL_ENV, level, make_sandbox
from helpers.sandbox_levels import LEVELS, forced_level, why_not

pytestmark = pytest.mark.e2e

BINDS = 12
PROBE = """
import json, os, sys
libs, ws, out = sys.argv[1:4]
found = [__import__(f"lib{i}").VALUE for i in range(int(sys.argv[4]))]

def writes(folder):
    try:
        with open(os.path.join(folder, "pwned"), "w") as handle:
            handle.write("x")
        return True
    except OSError:
        return False

def target(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the descriptor listdir itself used, closed by now
        return None

fds = [target(n) for n in os.listdir("/proc/self/fd")]
print(json.dumps({
    "found": found,
    "lib_writes": [writes(os.path.join(libs, f"lib{i}")) for i in range(len(found))],
    "ws_writes": writes(ws),
    "out_writes": writes(out),
    "home": [os.environ["HOME"], os.listdir(os.environ["HOME"])],
    "fds": fds,
}))
"""


@pytest.mark.parametrize("level", LEVELS)
def test_a_view_with_many_binds_is_built_and_nothing_of_its_setup_is_left(tmp_path, level):
    libs, ws, out = tmp_path / "libs", tmp_path / "ws", tmp_path / "out"
    for folder in (ws, out):
        folder.mkdir()
    paths = []
    for i in range(BINDS):
        (libs / f"lib{i}").mkdir(parents=True)
        (libs / f"lib{i}" / f"lib{i}.py").write_text(f"VALUE = {i}\n")
        paths.append(str(libs / f"lib{i}"))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(paths)}
    cmd = [sys.executable, "-c", PROBE, str(libs), str(ws), str(out), str(BINDS)]
    with forced_level(level):
        box = make_sandbox(cmd, env, root=str(ws), writable=[str(out)])
        done = subprocess.run(
            box.cmd, env=box.env, capture_output=True, text=True, timeout=60, cwd=str(ws)
        )
    assert box.level == level
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["found"] == list(range(BINDS))  # every folder bound back, in the right place
    assert seen["lib_writes"] == [False] * BINDS and not seen["ws_writes"]  # read-only
    assert seen["out_writes"] and (out / "pwned").read_text() == "x"  # the one writable folder
    home, listed = seen["home"]  # the user's path: a fresh tmpfs, with only what is bound back
    assert home == os.path.expanduser("~") and set(listed) <= {".pyenv", ".local", ".cache"}
    assert [
        fd for fd in seen["fds"] if fd and str(tmp_path) in fd
    ] == []  # no setup descriptor left
    assert sorted(p.name for p in tmp_path.rglob("pwned")) == ["pwned"]


def test_the_level_probe_works_when_path_goes_through_a_hidden_folder(tmp_path, monkeypatch):
    """The probe runs `true` inside a view that hides /tmp and /run: where every tool is found
    through such a folder (NixOS's PATH runs through /run/current-system/sw/bin), it once
    vanished there and the level fell to "none"."""
    usable = [name for name in ("bwrap", "unshare") if why_not(name) is None]
    if not usable:
        pytest.skip("neither bwrap nor unshare can make namespaces here")
    (tmp_path / "bin").mkdir()
    for tool in ("true", *usable):
        (tmp_path / "bin" / tool).symlink_to(os.path.realpath(shutil.which(tool) or tool))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv(LEVEL_ENV, raising=False)
    level.cache_clear()
    try:
        assert level() == usable[0]
    finally:
        level.cache_clear()


@pytest.mark.parametrize("level", LEVELS)
def test_the_view_is_built_for_a_command_that_is_not_heal_ls_python(tmp_path, level):
    """The project's interpreter is rarely heal-ls's own: heal-ls's standard library (a pyenv
    build under /root, a venv under /home) is then hidden by the time the view is half built,
    so building it may not import anything late."""
    (tmp_path / "ws").mkdir()
    cmd = [os.path.realpath(shutil.which("env") or "/usr/bin/env")]
    with forced_level(level):
        box = make_sandbox(cmd, {"PATH": "/usr/bin:/bin"}, root=str(tmp_path / "ws"))
        done = subprocess.run(box.cmd, env=box.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"HOME={os.path.expanduser('~')}" in done.stdout.splitlines()
