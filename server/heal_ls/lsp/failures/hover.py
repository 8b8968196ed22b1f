"""textDocument/hover on a heal diagnostic: the failure's frames with their locals and the last
commits that changed the suspect function (lsp/failures/hover_text.py writes the Markdown).

Served on the lines the diagnostics are on (the failing line in the suspect, the failing test
line). The frames come from the run, in memory; the commits from `git log -L`, asked once per
function as it is on disk (locate/commits.py, cached by fingerprint) in a worker thread, so the
event loop never waits on git. No git, or not a repository: no commits section.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from heal_ls.locate import commits
from heal_ls.lsp.failures.diagnostics import error_line
from heal_ls.lsp.failures.hover_text import hover_markdown
from heal_ls.lsp.log import guarded
from heal_ls.lsp.workspace.documents import uri_to_path
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known


def knowns_at(folder: Folder, path: str, line: int) -> list[Known]:
    """The failures of the folder with a diagnostic on `line` (1-based) of `path`."""
    found = []
    for known in folder.state.known.values():
        failure = known.failure
        on_test = failure.test_path == path and failure.test_line == line
        if error_line(known) == (path, line) or on_test:
            found.append(known)
    return found


async def hover(server: HealLanguageServer, params: types.HoverParams) -> types.Hover | None:
    path = uri_to_path(params.text_document.uri)
    folder = server.folder_for(path)
    if path is None or folder is None:
        return None
    knowns = knowns_at(folder, path, params.position.line + 1)
    if not knowns:
        return None
    texts = []
    for known in knowns[:3]:
        history = await _commits(known)
        texts.append(
            hover_markdown(known.failure, known.suspect, folder.root, history, known.label())
        )
    content = types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(texts))
    return types.Hover(contents=content)


async def _commits(known: Known) -> list[commits.Commit] | None:
    suspect = known.suspect
    if suspect is None:
        return None
    # even a cache hit reads the file's fingerprint (a compile after an edit): off the loop
    return await asyncio.to_thread(commits.function_commits, suspect.path, suspect.qualname)


def register(server: HealLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded
    async def on_hover(server: HealLanguageServer, params: types.HoverParams) -> types.Hover | None:
        return await hover(server, params)
