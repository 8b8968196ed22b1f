"""The server's state is declared in HealLanguageServer.__init__ (never added at run time), and
background tasks are kept until they end (asyncio holds only weak references to tasks)."""

from __future__ import annotations

import ast
import asyncio
import gc
from pathlib import Path

import pytest
from heal_ls.lsp import log
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer

LSP = Path(log.__file__).resolve().parent
SERVER_NAMES = {"ls", "server"}  # how handlers and features name the server


def _server_of(node: ast.expr) -> bool:
    """`ls.x`, `server.x`, `self.ls.x`: an attribute of the server object."""
    if isinstance(node, ast.Name):
        return node.id in SERVER_NAMES
    return isinstance(node, ast.Attribute) and node.attr == "ls"


def _assigned_server_attributes() -> dict[str, str]:
    found = {}
    for path in sorted(LSP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            targets += [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and _server_of(target.value):
                    found[target.attr] = f"{path.name}:{node.lineno}"
    return found


def _dynamic_lookups() -> list[str]:
    """getattr/hasattr on the server: a sign of state that may or may not be there."""
    found = []
    for path in sorted(LSP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and node.args
                and _server_of(node.args[0])
            ):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_every_server_attribute_is_declared_in_init():
    server = HealLanguageServer()
    declared = set(vars(server)) | set(vars(server.folders[0]))  # a Folder stands in for `ls` too
    undeclared = {a: w for a, w in _assigned_server_attributes().items() if a not in declared}
    assert undeclared == {}


def test_a_folder_delegates_nothing_implicitly():
    folder = HealLanguageServer().folders[0]
    assert "__getattr__" not in vars(Folder) and "__setattr__" not in vars(Folder)
    with pytest.raises(AttributeError):
        folder.not_a_member  # noqa: B018 - an unknown name is an error, not the server's
    with pytest.raises(AttributeError):
        folder.feature  # noqa: B018 - the server's pygls registration API is not a folder's


def test_a_folder_reads_and_writes_the_servers_shared_state():
    server = HealLanguageServer()
    folder = server.folders[0]
    folder.healing_target, folder.last_heal, folder.lastfailed_watched = "f", {"x": 1}, True
    folder.published_uris = {"file:///a.py"}
    assert (server.healing_target, server.last_heal, server.lastfailed_watched) == (
        "f",
        {"x": 1},
        True,
    )
    assert server.published_uris == {"file:///a.py"} and folder.folders is server.folders
    assert folder.folder_for(folder.root) is folder and folder.indexes is server.indexes


def test_no_getattr_or_hasattr_on_the_server():
    assert _dynamic_lookups() == []


def test_the_static_check_sees_assignments():
    assert "heal_task" in _assigned_server_attributes()  # set by the heal command


async def test_spawned_tasks_are_kept_until_done():
    finished = asyncio.Event()

    async def work():
        await asyncio.sleep(0.05)
        finished.set()

    log.spawn(work(), "kept task")  # the caller drops its reference at once
    gc.collect()
    assert len(log.RUNNING) == 1
    await asyncio.wait_for(finished.wait(), 5)
    await asyncio.sleep(0)  # let the done callback run
    assert not log.RUNNING
