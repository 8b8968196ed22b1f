"""`ls` means one thing: handlers hold the typed server (HealLanguageServer), whose state is
declared in its __init__ (never added at run time); a folder's state is declared in Folder, and a
Folder holds no server and passes nothing through; background tasks have one owner, the
server's `run_task`, which keeps them until they end (asyncio holds only weak references)."""

from __future__ import annotations

import ast
import asyncio
import functools
import gc
from pathlib import Path

from heal_ls.lsp import log
from heal_ls.lsp.serve import create_server
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer

LSP = Path(log.__file__).resolve().parent


def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (str(p.relative_to(LSP)), ast.parse(p.read_text(encoding="utf-8")))
        for p in sorted(LSP.rglob("*.py"))
    ]


def _assigned_attributes(owner: str) -> dict[str, str]:
    """Attributes assigned on `owner.x` or `self.owner.x` anywhere in lsp/."""
    found = {}
    for name, tree in _sources():
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            targets += [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
            targets = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            for target in targets:
                value = target.value if isinstance(target, ast.Attribute) else None
                if (isinstance(value, ast.Name) and value.id == owner) or (
                    isinstance(value, ast.Attribute) and value.attr == owner
                ):
                    found[target.attr] = f"{name}:{node.lineno}"
    return found


def test_every_server_attribute_is_declared_in_init():
    declared = set(vars(HealLanguageServer()))
    undeclared = {a: w for a, w in _assigned_attributes("server").items() if a not in declared}
    assert undeclared == {}


def test_every_folder_attribute_is_declared_in_init():
    declared = set(vars(Folder(".")))
    undeclared = {a: w for a, w in _assigned_attributes("folder").items() if a not in declared}
    assert undeclared == {}


def test_the_static_check_sees_assignments():
    assert "heal_task" in _assigned_attributes("server")  # set by the heal command
    assert "settings" in _assigned_attributes("folder")  # set by the configuration


def test_a_folder_holds_no_server_and_passes_nothing_through():
    folder = HealLanguageServer().folders[0]
    assert not any(isinstance(v, HealLanguageServer) for v in vars(folder).values())
    assert not [n for n, v in vars(Folder).items() if isinstance(v, property)]
    assert "__getattr__" not in vars(Folder) and "__setattr__" not in vars(Folder)


def test_no_parameter_is_named_ls_and_none_is_untyped():
    """Handlers and helpers name the server `server: HealLanguageServer` (or take a Folder):
    no `ls` that is sometimes the server and sometimes a folder."""
    named_ls, untyped = [], []
    for name, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                args = node.args
                for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                    if arg.arg == "ls":
                        named_ls.append(f"{name}:{node.lineno}")
                    if arg.arg == "server" and arg.annotation is None:
                        untyped.append(f"{name}:{node.lineno}")
    assert named_ls == [] and untyped == []


def _bound_server(handler: object) -> object:
    """The server pygls bound to a registered handler (a partial, or a closure)."""
    if isinstance(handler, functools.partial):
        return handler.args[0] if handler.args else None
    cells = getattr(handler, "__closure__", None) or ()
    return next(
        (c.cell_contents for c in cells if isinstance(c.cell_contents, HealLanguageServer)), None
    )


def test_every_handler_is_given_the_server():
    """pygls passes the server only to a handler whose first parameter is named `ls` or is
    annotated with the server's class (resolvable at run time)."""
    server = create_server()
    handlers = {**server.protocol.fm.features, **server.protocol.fm.commands}
    assert len(handlers) > 15
    assert {name: _bound_server(h) for name, h in handlers.items()} == dict.fromkeys(
        handlers, server
    )


def test_no_getattr_or_hasattr_on_the_server():
    found = []
    for name, tree in _sources():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in ("server", "folder")
            ):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert found == []


async def test_spawned_tasks_are_kept_until_done_and_failures_logged(caplog):
    server = HealLanguageServer()
    finished = asyncio.Event()

    async def work():
        await asyncio.sleep(0.05)
        finished.set()

    async def broken():
        raise ValueError("boom")

    server.run_task(work(), "kept task")  # the caller drops its reference at once
    server.run_task(broken(), "broken task")
    gc.collect()
    assert len(server.tasks) == 2
    await asyncio.wait_for(finished.wait(), 5)
    await asyncio.sleep(0)  # let the done callbacks run
    assert not server.tasks
    assert "broken task failed: ValueError: boom" in caplog.text


async def test_shutdown_cancels_every_task():
    server = HealLanguageServer()
    task = server.run_task(asyncio.sleep(60), "long")
    server.cancel_tasks()
    await asyncio.sleep(0)
    await asyncio.sleep(0)  # the done callback runs after the cancellation
    assert task.cancelled() and not server.tasks
