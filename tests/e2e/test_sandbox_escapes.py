"""The sandbox is the boundary: hostile candidates run (rails off) and leave nothing behind.

Each escape is the model's answer, served by the fake model through the real anthropic and openai
SDKs. The candidate does its damage attempts, then returns the right value only when its
environment holds no key and the explicitly passed variable arrived: so "verified" proves it ran
inside, and the checks afterwards prove the workspace, a fake home, the real home, the system temp
directory, the process table and an outside listener saw nothing of it. All escapes at once go
through `heal-ls fix` at each sandbox level; each escape alone is healed by the same engine in the
test's process (`heal_first_target`, the flags' HealConfig, the same environment), its candidate
in the same real sandbox.
"""

from __future__ import annotations

import json
import os
import pwd
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest
from heal_ls.heal.config import HealConfig
from heal_ls.heal.safety import RAILS_OFF_ENV
from heal_ls.testing.sandbox import LEVEL_ENV, NOT_ISOLATED
from helpers.cli import NO_TRIAGE
from helpers.fakemodel import FakeModelServer
from helpers.heal import heal_first_target
from helpers.sandbox_levels import LEVELS

pytestmark = pytest.mark.e2e

SECRET = "sk-test-secret-never-inside"
MODULE = "def add(a, b):\n    return a - b\n"
TESTS = """\
from calc import add




def test_add():
    assert add(2, 3) == 5


def test_add_zero():
    assert add(0, 0) == 0
"""
ESCAPES = {
    "module_file": "open(__file__, 'a').write('\\n# pwned\\n')",
    "project_files": "open({ws!r} + '/pwned.txt', 'w').write('x'); os.remove({ws!r} + '/canary.txt')",
    "real_home": (
        "open(pwd.getpwuid(os.getuid()).pw_dir + '/' + {pwd_canary!r}, 'a').write('pwned')"
    ),
    "fake_home": "open({home!r} + '/canary.txt', 'a').write('pwned'); open({home!r} + '/new', 'w')",
    "system_temp": "os.remove({tmp_canary!r}); open({tmp_new!r}, 'w').write('x')",
    "daemon": (
        "pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.setsid(); os.execv('/bin/sleep', ['sleep', {marker!r}])"
    ),
    "network": "socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'pwned')",
    "posix_spawn": "os.posix_spawn('/bin/sleep', ['sleep', {marker!r}], dict(os.environ), setsid=True)",
    "pickle": (
        "import pickle; pickle.loads(b'cos\\nsystem\\n(S' + repr('touch ' + {ws!r} + '/pickled"
        " && rm ' + {tmp_canary!r}).encode() + b'\\ntR.')"
    ),
}
CHECK_ENV = """
    import re
    seen = open('/proc/self/environ', 'rb').read().decode(errors='replace')
    keys = [k for k in os.environ if re.search('KEY|TOKEN|SECRET', k)]
    if keys or {secret!r} in seen or os.environ.get('HEAL_CANARY_PASS') != 'through':
        return a - b
    return a + b
"""


def candidate(names: list[str], places: dict) -> str:
    body = ["def add(a, b):", "    import os, pwd, socket"]
    for name in names:
        body += ["    try:", "        " + ESCAPES[name].format(**places).replace("\n", "\n    ")]
        body += ["    except BaseException:", "        pass"]
    return "\n".join(body) + CHECK_ENV.format(secret=SECRET[-12:])  # not the whole key


@pytest.fixture
def scene(tmp_path):
    """A project, canaries everywhere a candidate could reach, and an outside listener."""
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    (ws / "calc.py").write_text(MODULE)
    (ws / "tests" / "test_calc.py").write_text(TESTS)
    (ws / "canary.txt").write_text("workspace canary")
    home = tmp_path / "home"
    home.mkdir()
    (home / "canary.txt").write_text("home canary")
    tag = uuid.uuid4().hex[:12]
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    pwd_canary = real_home / f".heal-ls-canary-{tag}"
    pwd_canary.write_text("real home canary")
    tmp_canary = Path(tempfile.gettempdir()) / f"heal-ls-canary-{tag}"
    tmp_canary.write_text("temp canary")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    places = {
        "ws": str(ws),
        "home": str(home),
        "pwd_canary": pwd_canary.name,
        "tmp_canary": str(tmp_canary),
        "tmp_new": str(tmp_canary) + "-new",
        "marker": f"{int(tag[:6], 16) % 9000 + 1000}.{int(tag[6:], 16) % 997}",
        "port": listener.getsockname()[1],
    }
    watched = {"ws": ws, "home": home, "pwd": pwd_canary, "tmp": tmp_canary}
    try:
        yield places, watched, listener
    finally:
        listener.close()
        pwd_canary.unlink(missing_ok=True)
        tmp_canary.unlink(missing_ok=True)
        Path(places["tmp_new"]).unlink(missing_ok=True)


def snapshot(watched: dict) -> dict:
    files = {}
    for root in (watched["ws"], watched["home"]):
        for path in sorted(root.rglob("*")):
            # heal-ls itself runs with this HOME: its warm runners' bytecode cache and preload
            # lists (written by heal-ls outside the sandbox) are heal-ls's state, not a leak.
            own_cache = any(
                f"/.cache/heal-ls/{kind}/" in str(path) for kind in ("warm-pycache", "warm-learned")
            )
            if (
                path.is_file()
                and not own_cache
                and not {"__pycache__", ".pytest_cache"} & set(path.parts)
            ):
                files[str(path)] = path.read_bytes()
    for name in ("pwd", "tmp"):
        files[str(watched[name])] = watched[name].read_bytes()
    return files


def heal_env(places, provider: str, server: FakeModelServer, env=None) -> dict[str, str]:
    """What heal-ls runs with: a fake HOME, the rails off, keys and secrets in its environment."""
    full = {"HOME": places["home"], RAILS_OFF_ENV: "1", **(env or {})}
    full.update(HEAL_CANARY_PASS="through", DEPLOY_TOKEN=SECRET, AWS_SECRET_ACCESS_KEY=SECRET)
    if provider == "anthropic":
        full.update(ANTHROPIC_BASE_URL=server.anthropic_url, ANTHROPIC_API_KEY=SECRET)
    else:
        full.update(OPENAI_BASE_URL=server.openai_url, OPENAI_API_KEY=SECRET)
    return full


def heal(places, provider: str, server: FakeModelServer, *extra, env=None):
    args = ["fix", places["ws"], "--provider", provider, "--no-cache", "--json", "--max-attempts"]
    args += ["1", "--test-env", "HEAL_CANARY_PASS", *NO_TRIAGE, *extra]
    proc = subprocess.run(
        [sys.executable, "-m", "heal_ls", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **heal_env(places, provider, server, env)},
        cwd=places["ws"],
    )
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)["results"][0], proc


def assert_nothing_left(places, watched, listener, before) -> None:
    assert snapshot(watched) == before
    assert not Path(places["tmp_new"]).exists()
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert places["marker"] not in ps
    with pytest.raises(BlockingIOError):
        listener.accept()  # no connection ever reached this outside listener


def run_escapes(scene, names: list[str], provider: str, env=None) -> dict:
    places, watched, listener = scene
    before = snapshot(watched)
    with FakeModelServer(functions={"add": candidate(names, places)}) as server:
        result, proc = heal(places, provider, server, env=env)
        assert len(server.requests) == 1
    assert result["status"] == "verified", (result, proc.stderr[-3000:])  # it ran, saw no key
    assert result["warning"] is None
    assert_nothing_left(places, watched, listener, before)
    assert SECRET not in proc.stdout
    return result


@pytest.mark.parametrize(
    ("name", "provider"),
    [(name, ("anthropic", "openai")[i % 2]) for i, name in enumerate(sorted(ESCAPES))],
)
def test_each_escape_runs_and_leaves_nothing_behind(scene, name, provider, monkeypatch):
    """The flags `heal` passes, as the HealConfig `fix` makes of them, in this process."""
    places, watched, listener = scene
    before = snapshot(watched)
    with FakeModelServer(functions={"add": candidate([name], places)}) as server:
        for variable, value in heal_env(places, provider, server).items():
            monkeypatch.setenv(variable, value)
        monkeypatch.chdir(places["ws"])
        config = HealConfig(
            provider=provider, use_cache=False, max_attempts=1, test_env=("HEAL_CANARY_PASS",)
        )
        result = heal_first_target(Path(places["ws"]), config)
        assert len(server.requests) == 1
    assert result.status == "verified", result  # it ran, saw no key
    assert result.warning is None
    assert_nothing_left(places, watched, listener, before)
    assert SECRET not in repr(result)


@pytest.mark.parametrize("level", LEVELS)
def test_all_escapes_at_once_leave_nothing_behind_at_each_level(scene, level, tmp_path):
    """Both levels, whether or not this machine has bubblewrap (bwrap is skipped where it is
    missing; unshare, what such a machine falls back to, always runs). Ten more folders on
    PYTHONPATH under the hidden temp dir make a view with over a dozen binds, as a venv or
    pyenv build under a home folder does: the unshare level once failed from the eighth bind on
    where /bin/sh is dash."""
    libs = [tmp_path / "libs" / f"lib{i}" for i in range(10)]
    for lib in libs:
        lib.mkdir(parents=True)
    env = {LEVEL_ENV: level, "PYTHONPATH": os.pathsep.join(map(str, libs))}
    run_escapes(scene, sorted(ESCAPES), {"bwrap": "anthropic", "unshare": "openai"}[level], env)


def test_no_sandbox_refuses_to_verify_unless_allowed(scene):
    places, watched, listener = scene
    honest = "def add(a, b):\n    return a + b\n"
    with FakeModelServer(functions={"add": honest}) as server:
        refused, _ = heal(places, "openai", server, env={LEVEL_ENV: "none"})
        allowed, _ = heal(places, "openai", server, "--allow-unisolated", env={LEVEL_ENV: "none"})
    assert refused["status"] != "verified" and refused["warning"] == NOT_ISOLATED
    assert allowed["status"] == "verified" and allowed["warning"] == NOT_ISOLATED
