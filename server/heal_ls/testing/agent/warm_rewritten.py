"""Preloading pytest plugins in the warm server exactly as pytest itself would load them.

pytest rewrites the asserts of every plugin package it loads (entry points, `-p`); a plain import
would differ and make pytest warn "already imported so cannot be rewritten". So the server imports
those modules through pytest's own AssertionRewritingHook, reading the same hash-checked cached
code a child wrote. A child whose configuration would not rewrite them the same way (--assert=plain,
enable_assertion_pass_hook) reports doubt and the client runs that test cold instead.
Stdlib + pytest only.
"""

from __future__ import annotations

import json
import os
import sys
import types

import heal_protocol as wire
from heal_exchange import read_exchange

LIMIT = 1024 * 1024  # what is read of the files a run leaves beside its output

DOUBT_EXIT_CODE = 75
preloaded: list[str] = []  # rewritten modules this server imported (inherited by children)


def is_rewritten(module) -> bool:
    return type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"


def equivalent(config) -> bool:
    """Would this run have rewritten the preloaded modules the way we did?"""
    try:
        mode = config.getoption("assertmode", "rewrite")
        return mode == "rewrite" and not config.getini("enable_assertion_pass_hook")
    except (ValueError, AttributeError):
        return False


def check_child(config, output: str) -> None:
    """In the child, at configure time: leave at once (doubt) if the preloads do not fit."""
    if preloaded and not equivalent(config):
        _doubt(output, wire.Doubt(wire.DOUBT, "preloaded plugins were rewritten differently"))


def guard_plain_preloads(output: str) -> None:
    """In the child: if pytest wants to rewrite a module the server imported plainly (say a
    conftest's pytest_plugins names it), leave at once (doubt) instead of letting the run differ
    from a cold one by a warning; the client runs it cold and stops preloading that module."""
    try:
        # lazy: pytest's private module, in the child only; a pytest without it is not guarded
        from _pytest.assertion.rewrite import AssertionRewritingHook

        original = AssertionRewritingHook._warn_already_imported
    except (ImportError, AttributeError):
        return

    def warn(self, name: str) -> None:
        if name not in baseline:
            _doubt(output, wire.Doubt(wire.DOUBT_PLAIN, name))
        original(self, name)

    AssertionRewritingHook._warn_already_imported = warn  # type: ignore[method-assign]


baseline: set[str] = set()  # what a cold run has imported before pytest marks plugins


def _doubt(output: str, reason: wire.Doubt) -> None:
    with open(output + ".doubt", "w", encoding="utf-8") as file:
        file.write(wire.encode(reason))
    os._exit(DOUBT_EXIT_CODE)


def take_doubt(output: str) -> wire.Doubt | None:
    try:
        data = json.loads(read_exchange(output + ".doubt", LIMIT))
        os.unlink(output + ".doubt")
        return wire.build(wire.Doubt, data)
    except (OSError, ValueError, TypeError):
        return None


class _StubConfig:
    """The little of pytest's Config that the rewriting hook reads outside a session."""

    def __init__(self) -> None:
        # lazy: pytest's private module, imported only once import_rewritten has found it
        from _pytest.assertion.rewrite import assertstate_key

        self.stash = {assertstate_key: types.SimpleNamespace(trace=lambda *args: None)}

    def getini(self, name: str):
        if name == "enable_assertion_pass_hook":
            return False
        raise ValueError(name)  # python_files: the hook falls back to pytest's defaults


def import_rewritten(names: list[str], marked: list[str], prefix: str | None, importer) -> None:
    """Import `names` with pytest's rewriting hook; `importer(name)` does the import itself."""
    try:
        # lazy: pytest's private module, inside the try: an unknown pytest preloads nothing
        from _pytest.assertion.rewrite import AssertionRewritingHook

        hook = AssertionRewritingHook(_StubConfig())  # type: ignore[arg-type]  # what it reads
    except Exception:  # noqa: BLE001 - a pytest we do not understand: preload nothing
        return
    hook._must_rewrite.update(marked)
    saved = sys.pycache_prefix, sys.dont_write_bytecode
    sys.pycache_prefix, sys.dont_write_bytecode = prefix, True  # read the children's cache only
    sys.meta_path.insert(0, hook)
    try:
        for name in names:
            if name not in sys.modules:
                importer(name)
                if is_rewritten(sys.modules.get(name)):
                    preloaded.append(name)
    finally:
        sys.meta_path.remove(hook)
        sys.pycache_prefix, sys.dont_write_bytecode = saved
