"""Shared fixtures: paths to the repository and its examples, and throwaway copies of examples."""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from xdist.scheduler import LoadFileScheduling

pytest_plugins = ["helpers.fakemodel", "helpers.sandbox_levels"]  # fake_model, sandbox_level

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
# The agent runs in the user's interpreter as top-level modules; tests import them so too.
sys.path.insert(0, str(REPO / "server" / "heal_ls" / "testing" / "agent"))
# Small projects the e2e tests copy and heal; their own tests fail on purpose.
collect_ignore = ["e2e/multinode", "setups"]

# Tests never use a real key, a real endpoint or the user's repair cache.
for _name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
    os.environ.pop(_name, None)
# One cache folder a test process (the servers' own go inside it), gone when the process ends.
os.environ["HEAL_LS_CACHE_DIR"] = tempfile.mkdtemp(prefix="heal-ls-test-cache-")
atexit.register(shutil.rmtree, os.environ["HEAL_LS_CACHE_DIR"], ignore_errors=True)
# and the servers' logs, not the user's state folder
os.environ["HEAL_LS_LOG_DIR"] = os.path.join(os.environ["HEAL_LS_CACHE_DIR"], "logs")
_NO_AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """The test modules' rewritten bytecode is kept (`tests/**/__pycache__`, pytest's default):
    where PYTHONDONTWRITEBYTECODE is set, as in this tool environment, every run rewrote and
    compiled every test module again (~4 CPU-s of `make test-fast`, and in each xdist worker).
    Collection only: a project's modules a test imports in process keep the environment's rule."""
    before = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = before


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "venv_plugins: the test's pytest subprocesses load the plugins installed here (xdist,"
        " pytest-cov...) as a user's would",
    )


@pytest.fixture(autouse=True, scope="session")
def _children_outside_xdist():
    """Under `make test`'s xdist workers, the pytest runs the tests start are a user's plain runs:
    xdist's worker variables would tell them they are workers (test_xdist checks they are not)."""
    saved = {
        name: os.environ.pop(name) for name in list(os.environ) if name.startswith("PYTEST_XDIST_")
    }
    yield
    os.environ.update(saved)


@pytest.fixture(autouse=True, scope="session")
def _children_without_dev_plugins():
    """The pytest runs the tests start (heal-ls's and their own) load no plugin by entry point:
    this venv's dev plugins (hypothesis, pytest-lsp, pytest-asyncio...) are nothing the example
    projects use, and importing them costs ~2.7 s of CPU per pytest start, more than half of a
    `heal-ls fix`. Set once the session's own plugins are loaded (under xdist: in each worker)."""
    before = os.environ.get(_NO_AUTOLOAD)
    os.environ[_NO_AUTOLOAD] = "1"
    yield
    if before is None:
        del os.environ[_NO_AUTOLOAD]
    else:
        os.environ[_NO_AUTOLOAD] = before


@pytest.fixture(autouse=True, scope="module")
def _children_with_venv_plugins(request):
    """Modules about a user's plugins (`pytestmark = pytest.mark.venv_plugins`) run pytest as a
    user would, in their module-scoped fixtures too."""
    if request.node.get_closest_marker("venv_plugins") is None:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(_NO_AUTOLOAD, raising=False)
        # but not this venv's own test tools, which no example project uses: hypothesis and
        # pytest-lsp (lsprotocol) cost 2.3 of the 3.2 s of CPU of every such pytest start,
        # pytest-asyncio and anyio's plugin ~0.15 s more (pytest-mock stays: a project uses it)
        patch.setenv(
            "PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:pytest-lsp -p no:anyio -p no:asyncio"
        )
        yield


@pytest.fixture
def private_learned_lists(tmp_path, monkeypatch):
    """The warm runner's preload lists live in this test's folder, not the shared cache."""
    from heal_ls.testing.warm import client as warm_module

    monkeypatch.setattr(warm_module, "LEARNED_DIR", str(tmp_path / "learned"))


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def example_copy(tmp_path):
    """Return a function that copies examples/<name> into tmp_path and returns the copy's path."""

    def copy(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(
            EXAMPLES / name, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
        )
        return dest

    return copy


_ORDER = {"unit": 0, "e2e": 1, "lsp": 2, "nvim": 3, "vscode": 4}
_MARKED_FOLDERS = {"e2e", "lsp", "nvim", "vscode"}
_ONE_WORKER = {"nvim", "vscode"}
# Long files with no module-scoped fixture: their tests spread over the workers one by one.
_SPREAD = {"tests/e2e/test_setups.py", "tests/lsp/test_heal.py"}


def pytest_collection_modifyitems(config, items):
    """Fast tests first: unit, then end-to-end runs, the server, Neovim, and VS Code last. Under
    xdist the editors come first: each runs on one worker, so the longest groups start while the
    other worker takes the rest, instead of one worker finishing them alone."""
    on_workers = hasattr(config, "workerinput")

    def rank(item) -> int:
        folder = Path(str(item.fspath)).relative_to(REPO / "tests").parts[0]
        if on_workers and folder in _ONE_WORKER:
            return -1
        return _ORDER.get(folder, 1)

    items.sort(key=rank)  # stable: keeps each file's own order
    for item in items:  # markers by folder: `-m lsp`, `-m 'not vscode'`...
        folder = Path(str(item.fspath)).relative_to(REPO / "tests").parts[0]
        if folder in _MARKED_FOLDERS:
            item.add_marker(folder)


def pytest_xdist_make_scheduler(config, log):
    """`make test`'s workers take whole files (a file's module fixtures run once) and an editor's
    whole folder (one tool install, one editor at a time). xdist's own `xdist_group` marks cannot
    do it under pytest 9: loadgroup renames `item._nodeid`, which pytest 9 no longer reads."""

    class FilesAndEditors(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            folder = nodeid.split("/")[1] if nodeid.startswith("tests/") else ""
            if folder in _ONE_WORKER:
                return folder
            if nodeid.split("::")[0] in _SPREAD:
                return nodeid
            return super()._split_scope(nodeid)

    return FilesAndEditors(config, log)
