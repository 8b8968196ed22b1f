"""What the warm server's forked child does, and the rules for what the server may preload.

Stdlib + pytest only (runs under the user's interpreter). A "workspace module" is one whose file
is under the workspace root but not inside an interpreter prefix or site-packages (a .venv inside
the project is not workspace code). The server never imports workspace modules; the child imports
them fresh, without reading or writing bytecode for them.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import json
import os
import signal
import site
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout

if __package__:  # imported from heal_ls (tests); the warm server imports us as a plain file
    from . import warm_rewritten
else:
    import warm_rewritten

HERE = os.path.dirname(os.path.abspath(__file__))


def _install_dirs() -> list[str]:
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, HERE}
    dirs.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    return [os.path.realpath(d) for d in dirs if d]


INSTALL_DIRS = _install_dirs()


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def is_workspace(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    if not _under(real, root):
        return False
    return not any(_under(real, d) and len(d) > len(root) for d in INSTALL_DIRS)


def base_sys_path(root: str) -> list[str]:
    """The interpreter's sys.path without the script folder and without workspace folders."""
    return [p for p in sys.path[1:] if p and not is_workspace(p, root)]


_checked: set[str] = set()


def assert_no_workspace_modules(root: str) -> None:
    """Refuse to fork if any workspace module got into this process (children would see it stale)."""
    for name in list(sys.modules.keys() - _checked):
        path = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(path, str) and is_workspace(path, root):
            raise RuntimeError(f"workspace module {name} ({path}) is loaded in the warm server")
        _checked.add(name)


def quiet_import(name: str) -> None:
    """Import a module for its side effect of being cached; failures and prints are ignored."""
    sink = io.StringIO()
    try:
        with redirect_stdout(sink), redirect_stderr(sink):
            importlib.import_module(name)
    except BaseException:  # noqa: BLE001 - a module that cannot preload is simply not preloaded
        pass


def shadowed(name: str, root: str) -> bool:
    """True when a top-level name also exists in the workspace (it must come from there)."""
    top = name.partition(".")[0]
    return any(
        os.path.exists(os.path.join(root, folder, top + suffix))
        for folder in ("", "src", "tests", "test")
        for suffix in (".py", "")
    )


class RewriteRecorder:
    """A pytest plugin object for the child: checks the rewritten preloads fit this run, and
    remembers which module names pytest marked for rewriting (never preload those plainly:
    pytest would warn "already imported so cannot be rewritten")."""

    marked: set[str] | None = None
    output = ""

    def pytest_configure(self, config) -> None:
        warm_rewritten.check_child(config, RewriteRecorder.output)

    def pytest_unconfigure(self, config) -> None:
        hook = getattr(config.pluginmanager, "rewrite_hook", None)
        marked = getattr(hook, "_must_rewrite", None)
        RewriteRecorder.marked = set(marked) if isinstance(marked, (set, frozenset)) else None


def _marked(name: str, marked: set[str]) -> bool:
    parts = name.split(".")
    return any(".".join(parts[:i]) in marked for i in range(1, len(parts) + 1))


def _outside_workspace(name: str, module, root: str, base_path: list[str]) -> bool:
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or name == "__main__" or is_workspace(path, root):
        return False
    real = os.path.realpath(path)
    return any(_under(real, os.path.realpath(p)) for p in base_path) and not shadowed(name, root)


def learnable(name: str, module, root: str, base_path: list[str], marked: set[str]) -> bool:
    """May the server import this module plainly?"""
    if _marked(name, marked) or warm_rewritten.is_rewritten(module):
        return False
    return _outside_workspace(name, module, root, base_path)


def write_learned(output: str, before: set[str], root: str, base_path: list[str]) -> None:
    marked = RewriteRecorder.marked
    if marked is None:
        return  # unknown pytest internals: learn nothing rather than risk a difference
    new = [(name, module) for name, module in list(sys.modules.items()) if name not in before]
    learned = {
        "plain": [n for n, m in new if learnable(n, m, root, base_path, marked)],
        "rewritten": [
            n
            for n, m in new
            if warm_rewritten.is_rewritten(m) and _outside_workspace(n, m, root, base_path)
        ],
        "marked": sorted(marked),
        "prefix": sys.pycache_prefix,
    }
    with open(output + ".modules", "w", encoding="utf-8") as file:
        json.dump(learned, file)


def read_learned(output: str) -> dict:
    try:
        with open(output + ".modules", encoding="utf-8") as file:
            learned = json.load(file)
        os.unlink(output + ".modules")
        return learned
    except (OSError, ValueError):
        return {}


def _rewrite_cache_is_hashed() -> bool:
    """pytest >= 8.4 validates its rewritten-test .pyc by source hash, not by mtime."""
    try:
        import inspect

        from _pytest.assertion import rewrite

        return "source_hash" in inspect.getsource(rewrite._read_pyc)
    except Exception:  # noqa: BLE001 - unknown pytest: assume the old, unsafe cache
        return False


REWRITE_CACHE_IS_HASHED = _rewrite_cache_is_hashed()


def _choose_bytecode_cache(env: dict, private_dir: str | None) -> None:
    """Where bytecode goes. Without any cache every run re-rewrites the asserts of every pytest
    plugin, so when the user turned bytecode off (PYTHONDONTWRITEBYTECODE) we keep it in a private
    folder instead of their tree. Workspace code never uses .pyc files (_no_workspace_bytecode)."""
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    if not REWRITE_CACHE_IS_HASHED:
        sys.dont_write_bytecode = True  # old pytest trusts (mtime, size) for rewritten tests
    elif sys.dont_write_bytecode and private_dir:
        sys.pycache_prefix = private_dir
        sys.dont_write_bytecode = False


def _no_workspace_bytecode(root: str) -> None:
    """Make importlib skip .pyc files for workspace sources: a same-second, same-size edit would
    otherwise match a stale .pyc's (mtime, size) stamp."""
    bootstrap = sys.modules.get("importlib._bootstrap_external")
    original = getattr(bootstrap, "cache_from_source", None)
    if original is None:
        return

    def cache_from_source(path, *args, **kwargs):
        if is_workspace(os.fspath(path), root):
            raise NotImplementedError("heal-ls warm runner: compile workspace code from source")
        return original(path, *args, **kwargs)

    bootstrap.cache_from_source = cache_from_source


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this child if the warm server dies (no orphaned runs)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(70)


def _isolate(output: str, close_fds: list[int], parent: int) -> None:
    os.setpgid(0, 0)
    _die_with_parent(parent)
    for fd in close_fds:
        os.close(fd)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def _fresh_std_streams(unbuffered: bool) -> None:
    """New sys.stdout/stderr on fds 1 and 2, buffered like a cold run's (PYTHONUNBUFFERED)."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        raw = io.FileIO(fd, "w", closefd=False)
        binary = raw if unbuffered else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(
            binary, encoding=old.encoding, errors=old.errors, write_through=unbuffered or fd == 2
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _apply_request(request: dict, root: str, base_path: list[str]) -> None:
    cwd, env = request["cwd"], request["env"]
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    first = [] if env.get("PYTHONSAFEPATH") else [cwd]  # what `python -m pytest` puts first
    sys.path[:] = first + extra + [p for p in base_path if p not in extra]
    sys.argv = [os.path.join(os.path.dirname(sys.modules["pytest"].__file__), "__main__.py")]
    sys.argv += list(request["argv"])
    _choose_bytecode_cache(env, request.get("pycache"))
    _no_workspace_bytecode(root)
    importlib.invalidate_caches()


def _main(pytest, argv: list[str], profile_path: str | None) -> int:
    """pytest.main, optionally under cProfile (HEAL_LS_WARM_PROFILE=file, for diagnosing)."""
    if not profile_path:
        return int(pytest.main(argv, plugins=[RewriteRecorder()]))
    import cProfile

    profiler = cProfile.Profile(time.process_time)  # CPU time: meaningful on a busy machine
    try:
        return int(profiler.runcall(pytest.main, argv, plugins=[RewriteRecorder()]))
    finally:
        profiler.dump_stats(profile_path)


def run_child(request: dict, root: str, base_path: list[str], close_fds: list[int]) -> None:
    """Runs in the forked child; never returns."""
    code = 70
    before = set(sys.modules)
    parent = os.getppid()
    RewriteRecorder.output = request["output"]
    try:
        _isolate(request["output"], close_fds, parent)
        _fresh_std_streams(bool(request["env"].get("PYTHONUNBUFFERED")))
        _apply_request(request, root, base_path)
        import pytest

        code = _main(pytest, list(request["argv"]), os.environ.get("HEAL_LS_WARM_PROFILE"))
        sys.stdout.flush()
        write_learned(request["output"], before, root, base_path)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - report and exit like a crashed interpreter
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)
