"""What a sandbox shows of the interpreter: asked once, and a failed answer never remembered."""

from __future__ import annotations

import os
import sys

from heal_ls.testing import sandbox_view


def test_the_interpreters_paths_are_asked_once(monkeypatch):
    monkeypatch.setattr(sandbox_view, "_PYTHON_PATHS", {})
    first = sandbox_view.python_paths(sys.executable, "")
    assert os.path.realpath(os.path.dirname(os.__file__)) in map(os.path.realpath, first)
    monkeypatch.setattr(sandbox_view.subprocess, "run", None)  # a second probe would crash
    assert sandbox_view.python_paths(sys.executable, "") == first


def test_a_failed_probe_is_asked_again(tmp_path, monkeypatch):
    """A probe that failed once (here: no such interpreter yet) must not hide the interpreter's
    library from every later sandbox of this process."""
    monkeypatch.setattr(sandbox_view, "_PYTHON_PATHS", {})
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    assert sandbox_view.python_paths(str(python), "") == (str(tmp_path),)
    python.symlink_to(sys.executable)
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    assert stdlib in map(os.path.realpath, sandbox_view.python_paths(str(python), ""))


def test_a_probe_answer_that_is_no_list_of_paths_is_a_failed_probe(tmp_path, monkeypatch):
    """The probe's answer is read as the list of strings it must be: a number in it (once kept:
    os.path.exists(1) is true, file descriptor 1) or another shape falls back like a failure."""
    monkeypatch.setattr(sandbox_view, "_PYTHON_PATHS", {})
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    for answer in ('[1, "/"]', '{"path": "/"}'):
        python.write_text(f"#!/bin/sh\necho '{answer}'\n")
        python.chmod(0o755)
        assert sandbox_view.python_paths(str(python), "") == (str(tmp_path),)
    assert sandbox_view._PYTHON_PATHS == {}
