"""The real heal-ls server over stdio under pytest-lsp, on a copy of an example project.

`client` is parametrised over the VS Code and Neovim capability profiles. Override the project
with `@pytest.mark.parametrize("project", [...])` and the settings with a `settings` fixture.
The test client plays the editor's part: it applies workspace/applyEdit to its own copy of the
documents (refusing stale versions, as VS Code does) and answers window/showMessageRequest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from helpers.lsp import CONFIG, NO_TRIAGE, start_session
from pytest_lsp import LanguageClient


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
