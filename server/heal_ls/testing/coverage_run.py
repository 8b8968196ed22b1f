"""One traced run of the tests around some suspects, on the ORIGINAL code, cached by file contents.

Guards need it (which passing tests exercise the function a candidate changes?) and so does
localisation (a spectrum of passing vs failing tests). The tests chosen are every test in the
failing tests' modules plus every test file that imports a suspect's module; they run once with
coverage of workspace functions, and the outcome is kept on disk under a key made of every
workspace .py file's contents, the overlay, the interpreter and the arguments, so an unchanged
workspace never pays twice.

    run = await coverage_run(root, suspect_paths=[...], failing=[nodeids], options=RunOptions(...))
    run.covering("/abs/mod.py:12")   # passing tests that ran the function starting on line 12
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace

from heal_ls.models import TestOutcome
from heal_ls.testing.options import RunOptions

CACHE_VERSION = 2  # 2: exact exclusion (1 dropped test_x_empty with test_x)
_memory: dict[str, CoverageRun] = {}


@dataclass
class CoverageRun:
    """Per-test outcomes (with covered functions and durations) of one traced run."""

    tests: list[TestOutcome] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # the test files that ran (relative to root)
    seconds: float = 0.0  # wall time of the run (0.0 when it came from the cache)
    cached: bool = False
    error: str | None = None  # the run could not run at all; `tests` is then empty

    def passing(self) -> list[TestOutcome]:
        return [t for t in self.tests if t.outcome == "passed"]

    def covering(self, *keys: str) -> list[TestOutcome]:
        """Passing tests that ran a function given as "abs_path:first_line" (any of `keys`)."""
        wanted = set(keys)
        return [t for t in self.passing() if wanted.intersection(t.covered)]

    def not_passing(self) -> list[TestOutcome]:
        """Tests that did not pass on the original: reported, never held against a candidate."""
        return [t for t in self.tests if t.outcome != "passed"]


async def coverage_run(
    root: str,
    *,
    suspect_paths: Sequence[str] = (),
    failing: Sequence[str] = (),
    exclude: Sequence[str] | None = None,
    options: RunOptions | None = None,
) -> CoverageRun:
    """Run (or recall) the tests around `suspect_paths` and the `failing` node ids' modules.

    `exclude` node ids are deselected (default: the failing ones themselves, so a hanging
    failure does not cost a timeout here; their coverage is in the run that found them).
    """
    root = os.path.abspath(root)
    options = options or RunOptions()
    files = select_test_files(root, suspect_paths, failing)
    if not files:
        return CoverageRun()
    exclude = list(failing if exclude is None else exclude)
    key = _cache_key(root, files, exclude, options.python, options.pytest_args, options.overlay)
    hit = _memory.get(key) or _load(key)
    if hit is not None:
        _memory[key] = hit
        return CoverageRun(hit.tests, hit.files, 0.0, True)
    from heal_ls.testing.runner import run_pytest

    started = time.monotonic()
    from heal_ls.testing.agent.heal_protocol import EXCLUDE_OPTION

    excluded = (a for nodeid in exclude for a in (EXCLUDE_OPTION, nodeid))
    traced = replace(
        options,
        pytest_args=(*options.pytest_args, *excluded),
        run_timeout=max(60.0, options.test_timeout * 10),
    )
    run = await run_pytest(root, nodeids=files, trace=True, **traced.pytest_kwargs())
    result = CoverageRun(run.tests, files, round(time.monotonic() - started, 3), False, run.error)
    if not run.error and not run.timed_out:
        _memory[key] = result
        _save(key, result)
    return result


def select_test_files(root: str, suspect_paths: Sequence[str], failing: Sequence[str]) -> list[str]:
    """Test files (relative, `/`-separated) holding a failing test or importing a suspect."""
    chosen = {nodeid.split("::")[0] for nodeid in failing if "::" in nodeid}
    wanted = [_module_parts(root, p) for p in suspect_paths]
    wanted = [parts for parts in wanted if parts]
    if wanted:
        for rel, path in _test_files(root):
            if rel not in chosen and _imports_any(path, wanted):
                chosen.add(rel)
    return sorted(c for c in chosen if os.path.isfile(os.path.join(root, c)))


def _module_parts(root: str, path: str) -> tuple[str, ...]:
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith("..") or not rel.endswith(".py"):
        return ()
    parts = tuple(rel[:-3].split(os.sep))
    return parts[:-1] if parts[-1] == "__init__" else parts


def _test_files(root: str):
    from heal_ls.pysource.paths import FOREIGN_DIRS, is_test_file

    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in FOREIGN_DIRS and not d.startswith("."))
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith(".py") and name != "conftest.py" and is_test_file(path, root):
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def _imports_any(path: str, wanted: list[tuple[str, ...]]) -> bool:
    """Does the file import one of the modules? `import a.b`, `from a import b`, `from a.b
    import x` and `import b` (a src/ or sys.path layout) all count: a dotted name matches when it
    is a suffix of the module's path parts."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return False
    for name in _imported_names(tree):
        dotted = tuple(name.split("."))
        if any(len(dotted) <= len(w) and w[len(w) - len(dotted) :] == dotted for w in wanted):
            return True
    return False


def _imported_names(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


# --- the cache: keyed on everything that can change an outcome ---------------------------------


def _cache_key(root, files, exclude, python, pytest_args, overlay) -> str:
    from heal_ls.pysource.paths import FOREIGN_DIRS

    digest = hashlib.sha256()
    header = [CACHE_VERSION, root, files, sorted(exclude), python or "", list(pytest_args)]
    digest.update(json.dumps(header).encode())
    overlay = {os.path.abspath(p): t for p, t in (overlay or {}).items()}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in FOREIGN_DIRS and not d.startswith("."))
        for name in sorted(names):
            if not name.endswith((".py", ".ini", ".toml", ".cfg")):
                continue
            path = os.path.join(folder, name)
            digest.update(path.encode() + b"\0")
            if path in overlay:
                digest.update(overlay[path].encode("utf-8", "surrogatepass"))
                continue
            try:
                with open(path, "rb") as handle:
                    digest.update(handle.read())
            except OSError:
                digest.update(b"\1unreadable")
    return digest.hexdigest()


def _cache_path(key: str) -> str:
    folder = os.environ.get("HEAL_LS_CACHE_DIR")  # the repair cache's folder, as tests set it
    if not folder:
        from platformdirs import user_cache_dir

        folder = user_cache_dir("heal-ls", appauthor=False)
    return os.path.join(folder, "coverage-runs", key[:2], key + ".json")


def _load(key: str) -> CoverageRun | None:
    try:
        with open(_cache_path(key), encoding="utf-8") as handle:
            data = json.load(handle)
        tests = [TestOutcome.from_dict(t) for t in data["tests"]]
        return CoverageRun(tests, list(data["files"]), 0.0, True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save(key: str, run: CoverageRun) -> None:
    path = _cache_path(key)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"tests": [asdict(t) for t in run.tests], "files": run.files}, handle)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs a re-run next time
