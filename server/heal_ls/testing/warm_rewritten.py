"""Preloading pytest plugins in the warm server exactly as pytest itself would load them.

pytest rewrites the asserts of every plugin package it loads (entry points, `-p`); a plain import
would differ and make pytest warn "already imported so cannot be rewritten". So the server imports
those modules through pytest's own AssertionRewritingHook, reading the same hash-checked cached
code a child wrote. A child whose configuration would not rewrite them the same way (--assert=plain,
enable_assertion_pass_hook) reports doubt and the client runs that test cold instead.
Stdlib + pytest only.
"""

from __future__ import annotations

import os
import sys
import types

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
        with open(output + ".doubt", "w", encoding="utf-8") as file:
            file.write("preloaded plugins were rewritten differently")
        os._exit(DOUBT_EXIT_CODE)


def take_doubt(output: str) -> bool:
    try:
        os.unlink(output + ".doubt")
        return True
    except OSError:
        return False


class _StubConfig:
    """The little of pytest's Config that the rewriting hook reads outside a session."""

    def __init__(self) -> None:
        from _pytest.assertion.rewrite import assertstate_key

        self.stash = {assertstate_key: types.SimpleNamespace(trace=lambda *args: None)}

    def getini(self, name: str):
        if name == "enable_assertion_pass_hook":
            return False
        raise ValueError(name)  # python_files: the hook falls back to pytest's defaults


def import_rewritten(names: list[str], marked: list[str], prefix: str | None, importer) -> None:
    """Import `names` with pytest's rewriting hook; `importer(name)` does the import itself."""
    try:
        from _pytest.assertion.rewrite import AssertionRewritingHook

        hook = AssertionRewritingHook(_StubConfig())
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
