"""The real heal-ls server over stdio under pytest-lsp, on a copy of an example project.

`client` is parametrised over the VS Code and Neovim capability profiles. Override the project
with `@pytest.mark.parametrize("project", [...])` and the settings with a `settings` fixture.
The test client plays the editor's part: it applies workspace/applyEdit to its own copy of the
documents (refusing stale versions, as VS Code does) and answers window/showMessageRequest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from helpers.lsp import CONFIG, FORKS, NO_TRIAGE, start_session
from pytest_lsp import LanguageClient

REPO_ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache")


@pytest.fixture(scope="session", autouse=True)
def _fork_server():
    yield
    FORKS.close()


@pytest.fixture
def project() -> str:
    return "inventory"


@pytest.fixture
def settings() -> dict:
    return {"provider": "local", **NO_TRIAGE}


@pytest.fixture
def workspace(example_copy, project, repo_root, tmp_path) -> Path:
    """A copy of examples/<project>, or an empty folder the test fills in."""
    if (repo_root / "examples" / project).is_dir():
        return example_copy(project)
    (tmp_path / project).mkdir()
    return tmp_path / project


@pytest_lsp.fixture(config=CONFIG, params=["visual_studio_code", "neovim"])
async def client(request, lsp_client: LanguageClient, workspace: Path, settings: dict):
    """The server, once per client profile (VS Code 1.65 and Neovim 0.11 capabilities)."""
    await start_session(request, lsp_client, workspace, settings)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG, params=["visual_studio_code"])
async def vscode_client(request, lsp_client: LanguageClient, workspace: Path, settings: dict):
    """One profile only, for slow flows whose LSP traffic does not depend on the profile."""
    await start_session(request, lsp_client, workspace, settings)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def shared_workspace(tmp_path_factory) -> Path:
    """One copy of examples/inventory for a module's shared server."""
    dest = tmp_path_factory.mktemp("shared") / "inventory"
    shutil.copytree(REPO_ROOT / "examples" / "inventory", dest, ignore=IGNORED)
    return dest


@pytest_lsp.fixture(config=CONFIG, params=["visual_studio_code"], scope="module")
async def shared_client(request, lsp_client: LanguageClient, shared_workspace: Path):
    """One server for a module's tests that leave it as they found it (requests it refuses,
    notifications it ignores): the VS Code profile, local provider, on one inventory copy.
    Tests using it run in the module's event loop: `@pytest.mark.asyncio(loop_scope="module")`."""
    await start_session(request, lsp_client, shared_workspace, {"provider": "local", **NO_TRIAGE})
    yield
    await lsp_client.shutdown_session()
