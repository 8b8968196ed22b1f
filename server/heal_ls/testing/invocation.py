"""Everything one pytest run needs, decided before anything is spawned.

The warm runner forks its own pytest instead of spawning one, so a run's whole description
(argv, env, cwd, report path) lives in a PytestInvocation and nowhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from heal_ls.cache_folder import cache_dir
from heal_ls.testing.agent import heal_env
from heal_ls.testing.lastfailed import config_file
from heal_ls.testing.options import RunOptions
from heal_ls.testing.prestart import COVERAGE_FILE, PLUGIN_DIR, launch_env

PLUGIN_NAME = heal_env.PLUGIN_NAME
# More test ids than this run as their files, the plugin keeping the ids (agent/heal_select.py):
# pytest resolves each id argument on its own, ~15 ms an id of a big parametrized function.
SELECT_OVER = 100


@dataclass
class PytestInvocation:
    python: str
    argv: list[str]  # pytest's arguments (`python -m pytest ARGV` runs the same tests)
    env: dict[str, str]
    cwd: str
    report_path: str
    workdir: str  # temp dir holding the report and the overlay file; removed by cleanup()
    plugin_dir: str = PLUGIN_DIR  # must be on sys.path of the process running pytest
    root: str = ""
    test_timeout: float = 0.0
    overlay: dict[str, str] = field(default_factory=dict)
    seal: bytes = b""  # the secret the plugin's session line is sealed with (see report.py)

    @property
    def command(self) -> list[str]:
        # pytest, then os._exit: no teardown of the project's modules (agent/heal_pytest_main.py)
        return [self.python, "-m", heal_env.MAIN_MODULE, *self.argv]

    def cleanup(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)


def build_pytest_invocation(
    root: str | os.PathLike[str],
    options: RunOptions | None = None,
    *,
    nodeids: Sequence[str] | None = None,
    serial: bool = False,
) -> PytestInvocation:
    """The one place a pytest command line is put together (the options' python, pytest_args,
    test_timeout, overlay, trace and user_cache; the warm runner forks the same invocation).

    serial: run the tests in pytest's own process even when the user's config asks for
    pytest-xdist workers (`-n` in addopts); otherwise the workers run them and report.
    pytest's cache (lastfailed) and pytest-cov's data file are the run's own, never the user's,
    except for the user's own run (`user_cache`: heal-ls check, as plain pytest would) without an
    overlay; the cache plugin stays on, so `--lf` or `--ff` in the user's addopts still parse."""
    options = options or RunOptions()
    python, pytest_args, test_timeout = options.python, options.pytest_args, options.test_timeout
    overlay, trace = options.overlay, options.trace
    users_own = options.user_cache and not overlay  # a candidate's run is never the user's
    root = os.path.abspath(str(root))
    workdir = tempfile.mkdtemp(prefix="heal-ls-run-")
    report_path = os.path.join(workdir, "report.jsonl")
    env = plugin_env(root, report_path, trace, test_timeout)
    if trace and options.blocks:
        env[heal_env.BLOCKS] = "1"
    if overlay:
        env[heal_env.OVERLAY] = write_overlay(workdir, overlay)
    if not users_own:
        # pytest-cov's data of heal-ls's runs is theirs: a session ends by combining and deleting
        # every .coverage.* file beside its data file, so a background run (or the prewarm)
        # beside another run took that run's data mid-run; and the sandbox's workspace is read-only
        env[COVERAGE_FILE] = os.path.join(workdir, "coverage")
        env[heal_env.COV_REPORTS] = "0"  # nor its reports and threshold (agent/heal_cov.py)
    if serial:
        env[heal_env.SERIAL] = "1"
    seal = os.urandom(16)  # secrets.token_bytes, without importing secrets (hmac, hashlib)
    env[heal_env.SEAL] = os.path.join(workdir, "seal")
    with open(env[heal_env.SEAL], "wb") as handle:
        handle.write(seal)
    ours = [*_config_args(root, pytest_args), "--color=no", "-q"]
    ours.append("--continue-on-collection-errors")  # one broken file must not hide the rest
    cache = None if users_own else os.path.join(workdir, "pytest-cache")  # their lastfailed
    ids = _arguments(workdir, env, list(nodeids or []))
    argv = [
        "-p",
        PLUGIN_NAME,
        *pytest_arguments(root, pytest_args, ids, cache_dir=cache, extra=ours),
    ]
    return PytestInvocation(
        python=python or sys.executable,
        argv=argv,
        env=env,
        cwd=root,
        report_path=report_path,
        workdir=workdir,
        root=root,
        test_timeout=test_timeout,
        overlay=dict(overlay or {}),
        seal=seal,
    )


def runs_serial(options: RunOptions, nodeids: Sequence[str] | None) -> bool:
    """Does the run go in pytest's own process even under the user's pytest-xdist (`-n` in
    their config)? Only a whole-suite run of the saved code gains from starting workers: test
    ids (unless `options.spread`), candidates, sandboxed or warm runs run serially."""
    ids = bool(nodeids) and not options.spread
    return bool(ids or options.overlay) or options.warm is not None or options.policy is not None


def pytest_arguments(
    root: str,
    pytest_args: Sequence[str] = (),
    nodeids: Sequence[str] = (),
    *,
    cache_dir: str | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The arguments after `python -m pytest`, in the one order every run of heal-ls uses:
    `--rootdir root` (test ids are relative to it), heal-ls's `extra` switches, pytest's cache in
    `cache_dir` (None: where pytest keeps it), then the user's `pytest_args` (so theirs win) and
    the test ids. build_pytest_invocation adds heal-ls's plugin; a debug session
    (lsp/runs/debug.py) and the bench's plain ground-truth runs (bench/corpus.py) run without it."""
    cache = ["-o", f"cache_dir={cache_dir}"] if cache_dir else []
    return ["--rootdir", root, *extra, *cache, *pytest_args, *nodeids]


def without_reporter(inv: PytestInvocation) -> PytestInvocation:
    """The plugin-free confirmation's invocation (testing/confirm.py) from a plugin run's:
    `-p heal_serve` in place of heal-ls's plugin, pytest's JUnit XML written where the report
    would be (heal_serve points it there, so the warm runner's exchange folder carries it back
    as it carries a report)."""
    os.unlink(inv.env.pop(heal_env.SEAL))  # nothing here is sealed: no reporter exists
    for var in (heal_env.TRACE, heal_env.BLOCKS, heal_env.TEST_TIMEOUT, heal_env.HITS_CACHE):
        inv.env.pop(var, None)
    inv.argv[inv.argv.index(PLUGIN_NAME)] = heal_env.SERVE_PLUGIN
    # after the user's addopts, so these win; -p no:randomly keeps the sentinel last
    inv.argv += ["-p", "no:randomly", "-o", "junit_logging=no"]
    inv.argv += ["-o", "junit_log_passing_tests=false"]
    return inv


def _config_args(root: str, pytest_args: Sequence[str]) -> list[str]:
    """The config file and conftest floor pytest finds outside the sandbox, pinned: a
    pytest.ini or conftest.py that code left above the workspace is never read (the same
    files as pytest's own search finds, so honest runs see no difference)."""
    found = config_file(root)
    given = [*pytest_args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    given += found[1].get("addopts", "").split() if found else []
    if any(arg.split("=")[0] in ("-c", "--config-file", "--confcutdir") for arg in given):
        return []  # the user's own choice, kept as it is
    if found is None:
        return ["--confcutdir", root]
    return ["-c", found[0], "--confcutdir", os.path.dirname(found[0])]


def plugin_env(root: str, report_path: str, trace: bool, test_timeout: float) -> dict[str, str]:
    env = launch_env()  # what a launcher started ahead of the run has (testing/prestart.py)
    env[heal_env.REPORT] = report_path
    env[heal_env.ROOT] = root
    env[heal_env.TRACE] = "1" if trace else "0"
    if trace:  # the instrumented modules' code, kept across runs (agent/heal_hits.py)
        env[heal_env.HITS_CACHE] = str(cache_dir() / "hits")
    env[heal_env.TEST_TIMEOUT] = f"{test_timeout:g}" if test_timeout and test_timeout > 0 else "0"
    return env


def _arguments(workdir: str, env: dict[str, str], nodeids: list[str]) -> list[str]:
    """The run's test arguments: the ids, or for many ids their files, with the ids written
    for the plugin to keep (env SELECT)."""
    if len(nodeids) <= SELECT_OVER or not all("::" in nodeid for nodeid in nodeids):
        return nodeids
    env[heal_env.SELECT] = os.path.join(workdir, "select.json")
    with open(env[heal_env.SELECT], "w", encoding="utf-8") as handle:
        json.dump(nodeids, handle)
    return list(dict.fromkeys(nodeid.split("::", 1)[0] for nodeid in nodeids))


def write_overlay(workdir: str, overlay: dict[str, str]) -> str:
    path = os.path.join(workdir, "overlay.json")
    data = {os.path.abspath(p): text for p, text in overlay.items()}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return path
