"""What tox or nox would have set up for pytest that heal-ls's direct run does not.

heal-ls runs pytest itself, in the project root with the chosen interpreter. A project whose
tests are run by tox (tox.ini `[testenv]`) or nox (noxfile.py `session.run("pytest", ...)`) may
rely on their environment variables or their pytest arguments; these notes name them, so a
failure that comes from their absence is not mistaken for a bug.
"""

from __future__ import annotations

import ast
import configparser
import os
import shlex

PYTEST = ("pytest", "py.test")


def not_applied(root: str) -> list[str]:
    """One note per thing tox.ini or noxfile.py sets up and heal-ls does not apply."""
    return _tox(os.path.join(root, "tox.ini")) + _nox(root)


def _tox(path: str) -> list[str]:
    """What the environments that run pytest set up: an environment whose commands run no
    pytest (a release's upload, the docs' build) sets nothing up for the tests."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return []
    root = os.path.dirname(path)
    inherited = parser.get("testenv", "commands", fallback="")
    names, args = set(), []
    for section in parser.sections():
        if section != "testenv" and not section.startswith("testenv:"):
            continue
        own = parser[section].get("commands")  # None: [testenv]'s, whose arguments count there
        lines = (inherited if own is None else own).splitlines()
        runs = [words for line in lines if (words := _pytest_words(line)) is not None]
        if not runs:
            continue
        for line in parser[section].get("setenv", "").splitlines():
            if "=" in line:
                names.add(line.split("=", 1)[0].strip())
        if own is None:  # [testenv]'s commands: their arguments were read there
            continue
        for words in runs:
            args += [w for w in words if "{" not in w and not os.path.exists(os.path.join(root, w))]
    return _notes("tox.ini", sorted(names), args)


def _pytest_words(line: str) -> list[str] | None:
    """The arguments of a command line that runs pytest (`pytest ...`, `{envpython} -m pytest
    ...`, `coverage run -m pytest ...`); None for any other command."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    if words and words[0] in PYTEST:
        return words[1:]
    for at in range(len(words) - 1):
        if words[at] == "-m" and words[at + 1] in PYTEST:
            return words[at + 2 :]
    return None


def _nox(root: str) -> list[str]:
    try:
        with open(os.path.join(root, "noxfile.py"), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return []
    names: set[str] = set()
    args: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        words = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if node.func.attr == "run" and words and words[0] in PYTEST:
            args += [str(w) for w in words[1:] if not os.path.exists(os.path.join(root, str(w)))]
            env = next((k.value for k in node.keywords if k.arg == "env"), None)
            if isinstance(env, ast.Dict):
                names |= {str(k.value) for k in env.keys if isinstance(k, ast.Constant)}
    return _notes("noxfile.py", sorted(names), args)


def _notes(where: str, names: list[str], args: list[str]) -> list[str]:
    notes = []
    if names:
        notes.append(
            f"{where} sets {', '.join(names)} for the tests; heal-ls runs pytest directly "
            "without them: set them in the environment heal-ls runs in"
        )
    if args:
        notes.append(
            f"{where} runs pytest with {shlex.join(args)}; heal-ls runs pytest directly "
            f'without them: pass them with --pytest-args "{shlex.join(args)}"'
        )
    return notes
