"""What the warm server's forked child does: become a clean `python -m pytest` and run it.

Stdlib + pytest only. The child leads its own process group (one kill stops the run and anything
it started), dies with the server (Linux), writes all output to the run's file, takes the run's
environment, sys.path and argv, and never reads or writes bytecode for workspace files.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import io
import os
import signal
import sys
import time
import traceback

import heal_protocol as wire
import warm_rules
import warm_sandbox
from warm_rules import is_workspace


def _rewrite_cache_is_hashed() -> bool:
    """pytest >= 8.4 validates its rewritten-test .pyc by source hash, not by mtime."""
    try:
        # lazy: pytest's private module, inside the try: a pytest without it runs uncached
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

    bootstrap.cache_from_source = cache_from_source  # type: ignore[union-attr]


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this child if the warm server dies (no orphaned runs)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes  # lazy: Linux only, in the forked child

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


def _pytest_as_main() -> None:
    """Look like `python -m pytest` to code that inspects __main__ (multiprocessing's spawn
    re-imports it by name in new processes; it must not re-run the warm server)."""
    spec = importlib.util.find_spec("pytest.__main__")
    assert spec is not None, "pytest is importable: the server imported it"
    main = importlib.util.module_from_spec(spec)
    main.__name__ = "__main__"
    sys.modules["__main__"] = main


def _apply_request(request: wire.Run, root: str, run_path: list[str]) -> None:
    cwd, env = request.cwd, request.env
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    first = [] if env.get("PYTHONSAFEPATH") else [cwd]  # what `python -m pytest` puts first
    sys.path[:] = first + extra + [p for p in run_path if p not in extra and p not in first]
    _pytest_as_main()
    sys.argv = [str(sys.modules["__main__"].__file__), *request.argv]
    _choose_bytecode_cache(env, request.pycache)
    _no_workspace_bytecode(root)
    _forget_process_caches()


def _forget_process_caches() -> None:
    """Caches the server may have filled that a cold run would fill from this run's state."""
    importlib.invalidate_caches()  # directory listings: new and edited files are seen
    if "linecache" in sys.modules:
        sys.modules["linecache"].clearcache()  # tracebacks show the source as it is now
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # type: ignore[attr-defined]  # recomputed from this run's TMPDIR (sandbox)


def _main(pytest, argv: list[str], profile_path: str | None) -> int:
    """pytest.main, optionally under cProfile (HEAL_LS_WARM_PROFILE=file, for diagnosing)."""
    if not profile_path:
        return int(pytest.main(argv, plugins=[warm_rules.RewriteRecorder()]))
    import cProfile  # lazy: only when HEAL_LS_WARM_PROFILE asks for a profile

    profiler = cProfile.Profile(time.process_time)  # CPU time: meaningful on a busy machine
    try:
        return int(profiler.runcall(pytest.main, argv, plugins=[warm_rules.RewriteRecorder()]))
    finally:
        profiler.dump_stats(profile_path)


def run_child(
    request: wire.Run, root: str, paths: tuple[list[str], list[str]], close_fds: list[int]
) -> None:
    """Runs in the forked child; never returns. `paths`: sys.path without the workspace's
    folders (what may be learned from) and as a run has it (the workspace's .pth folders too)."""
    base_path, run_path = paths
    code = 70
    before = set(sys.modules)
    parent = os.getppid()
    warm_rules.RewriteRecorder.output = request.output
    try:
        _isolate(request.output, close_fds, parent)
        warm_sandbox.apply(request.sandbox, request.env)
        _fresh_std_streams(bool(request.env.get("PYTHONUNBUFFERED")))
        _apply_request(request, root, run_path)
        import pytest  # lazy: after the run's sys.path and environment are in place

        warm_rules.warm_rewritten.guard_plain_preloads(request.output)
        code = _main(pytest, list(request.argv), os.environ.get("HEAL_LS_WARM_PROFILE"))
        sys.stdout.flush()
        warm_rules.write_learned(request.output, before, root, base_path)
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
