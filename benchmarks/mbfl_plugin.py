"""pytest plugin for benchmarks/mbfl_study.py (a study, not a feature): runs the collected tests
once, then, for each mutant of each suspect, swaps the suspect function's `__code__` for the
mutant's and re-runs, in this process, the failing tests and the suspect's passing tests
(pytest-rerunfailures' way: `runtestprotocol(item, nextitem=None, log=False)`).

MBFL_SPEC names a JSON file: {"out": path, "cpu_limit": seconds a test run may use,
"failing": [nodeid], "suspects": [{"path", "qualname", "first", "last", "passing": [nodeid],
"mutants": [{"op", "source"}]}]}. One JSON line a mutant goes to "out" as it finishes (a mutant
that kills the process loses only itself); the first line is the baseline.
"""

from __future__ import annotations

import ast
import gc
import json
import os
import re
import signal
import types

import pytest
from _pytest.runner import runtestprotocol

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


class MutantTimeout(BaseException):
    """A mutant's test used up its CPU limit (a BaseException: `except Exception` lets it by)."""


def _alarm(signum, frame):
    raise MutantTimeout()


def outcome(item, cpu_limit: float) -> tuple[str, str]:
    """('passed'|'failed'|'skipped'|'timeout', the failure's crash message) of one in-process
    run of `item`, its fixtures set up and torn down around it."""
    if hasattr(item, "_initrequest"):
        item._initrequest()
    signal.setitimer(signal.ITIMER_VIRTUAL, cpu_limit)
    try:
        reports = runtestprotocol(item, nextitem=None, log=False)
    except MutantTimeout:
        return "timeout", ""
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    for report in reports:
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)[-300:]
            if "MutantTimeout" in message:
                return "timeout", ""
            return "failed", ADDRESS.sub("0x?", message)[:500]
    if any(r.skipped for r in reports):
        return "skipped", ""
    return "passed", ""


def functions_at(path: str, name: str, first: int, last: int) -> list[types.FunctionType]:
    """Every live function object whose code is the def `name` at lines first..last of `path`
    (the def itself, whatever wraps it: a property, a classmethod, functools.wraps)."""
    real = os.path.realpath(path)
    return [
        f
        for f in gc.get_objects()
        if isinstance(f, types.FunctionType)
        and f.__code__.co_name == name
        and first <= f.__code__.co_firstlineno <= last
        and os.path.realpath(f.__code__.co_filename) == real
    ]


def compiled(source: str, qualname: str, freevars: tuple[str, ...], filename: str):
    """The code object of the def in `source`, nested in a dummy function that binds `freevars`
    so its closure matches the original's (`__class__` for `super()` too) and in a class of its
    class's name so `self.__x` is mangled as it was; None when it cannot be."""
    tree = ast.parse(source)
    node = tree.body[0]
    if freevars:  # keep each free variable referenced, whatever the mutant deleted
        node.body.append(ast.parse("if False:\n    (" + ", ".join(freevars) + ",)").body[0])
    owner = qualname.split(".")[:-1]
    if owner and owner[-1] != "<locals>":
        holder = ast.parse(f"class {owner[-1]}:\n    pass").body[0]
        holder.body = [node]
        node = holder
    if freevars:
        outer = ast.parse(
            "def __mbfl_outer__():\n    " + " = ".join(freevars) + " = None\n    return None"
        ).body[0]
        outer.body.insert(1, node)
        node = outer
    tree.body = [node]
    ast.fix_missing_locations(tree)
    name = qualname.rsplit(".", 1)[-1]
    found = named(compile(tree, filename, "exec"), name)
    return found if found is not None and found.co_freevars == freevars else None


def named(code: types.CodeType, name: str) -> types.CodeType | None:
    """The first code object called `name` among `code`'s constants, depth first."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            deeper = named(const, name)
            if deeper is not None:
                return deeper
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    with open(os.environ["MBFL_SPEC"], encoding="utf-8") as handle:
        spec = json.load(handle)
    limit = float(spec.get("cpu_limit", 5.0))
    signal.signal(signal.SIGVTALRM, _alarm)
    items = {item.nodeid: item for item in session.items}
    base = {nodeid: outcome(item, limit) for nodeid, item in items.items()}
    out = open(spec["out"], "a", encoding="utf-8")  # noqa: SIM115
    out.write(json.dumps({"baseline": base}) + "\n")
    out.flush()
    done = set(spec.get("done", []))
    failing = [n for n in spec["failing"] if base.get(n, ("",))[0] == "failed"]
    for number, suspect in enumerate(spec["suspects"]):
        name = suspect["qualname"].rsplit(".", 1)[-1]
        targets = functions_at(suspect["path"], name, suspect["first"], suspect["last"])
        passing = [n for n in suspect["passing"] if base.get(n, ("",))[0] == "passed"]
        for index, mutant in enumerate(suspect["mutants"]):
            tag = f"{number}:{index}"
            if tag in done:
                continue
            record = {"tag": tag, "suspect": number, "op": mutant["op"], "swapped": False}
            code = None
            if targets:
                original = targets[0].__code__
                try:
                    code = compiled(
                        mutant["source"],
                        suspect["qualname"],
                        original.co_freevars,
                        original.co_filename,
                    )
                except (SyntaxError, ValueError):
                    code = None
            if code is not None:
                saved = [f.__code__ for f in targets]
                try:
                    for f in targets:
                        f.__code__ = code
                    record["swapped"] = True
                    record["failing"] = {n: outcome(items[n], limit) for n in failing}
                    record["passing"] = {n: outcome(items[n], limit) for n in passing}
                finally:
                    for f, c in zip(targets, saved):
                        f.__code__ = c
            else:
                record["why"] = "no live function" if not targets else "closure or compile"
            out.write(json.dumps(record) + "\n")
            out.flush()
    out.close()
    return True
