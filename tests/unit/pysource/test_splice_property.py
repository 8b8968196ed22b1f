"""Property: splicing into any def of real stdlib modules keeps every byte outside the node.

Hypothesis picks a module from a fixed list, a def inside it (method, nested, decorated, async...)
and a way to rewrite it; the expected prefix and suffix are computed here, independently of edit.py.
The rare shapes are drawn on purpose: picked at random, a decorated def is 7% of these modules'
2,100 defs and an async one 1.6%, so a run would often try neither; now a third of the draws
ask for each (where the module has one). Each example compiles a whole stdlib module several
times (~70 ms), so fewer examples of more kinds guard more for less.
"""

import ast
import functools
import os
import re
import sysconfig
import tokenize

import pytest
from heal_ls.models import Suspect
from heal_ls.pysource.splice import function_source, splice
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

STDLIB = sysconfig.get_paths()["stdlib"]
MODULES = [
    "argparse.py", "ast.py", "base64.py", "bisect.py", "calendar.py", "cmd.py",
    "configparser.py", "contextlib.py", "copy.py", "csv.py", "dataclasses.py", "difflib.py",
    "enum.py", "fnmatch.py", "fractions.py", "functools.py", "gettext.py", "glob.py",
    "heapq.py", "inspect.py", "json/decoder.py", "json/encoder.py", "logging/__init__.py",
    "optparse.py", "pprint.py", "queue.py", "shlex.py", "shutil.py", "statistics.py",
    "textwrap.py", "tokenize.py", "typing.py", "email/message.py", "urllib/parse.py",
    "asyncio/tasks.py", "asyncio/streams.py",
]  # fmt: skip
MARKER = "_heal_marker = 'spliced ✓'"


@functools.cache
def load(name: str) -> tuple[str, list]:
    with tokenize.open(os.path.join(STDLIB, name)) as f:  # honours coding cookies
        text = f.read()
    defs = [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return text, defs


KINDS = {
    "any": lambda node: True,
    "decorated": lambda node: bool(node.decorator_list),
    "async": lambda node: isinstance(node, ast.AsyncFunctionDef),
}


def pick_def(name: str, kind: str, pick: int):
    """The pick-th def of that kind in the module (of any kind where it has none)."""
    defs = load(name)[1]
    of_kind = [n for n in defs if KINDS[kind](n)] or defs
    return of_kind[pick % len(of_kind)]


def outside(text: str, node) -> tuple[str, str]:
    """The text before the node's first line's indentation ends, and after its last character."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)  # str.splitlines would also split on \f
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    head = "".join(lines[: first - 1])
    row = lines[first - 1]
    head += row[: len(row) - len(row.lstrip(" \t\f"))]
    last = lines[node.end_lineno - 1]
    end_col = len(last.encode()[: node.end_col_offset].decode())
    tail = last[end_col:] + "".join(lines[node.end_lineno :])
    return head, tail


def rewrite(node, how: str) -> str:
    copy = ast.parse(ast.unparse(node)).body[0]
    copy.body.insert(0, ast.parse(MARKER).body[0])
    if how == "drop decorators":
        copy.decorator_list = []
    text = ast.unparse(copy) + "\n"
    if how == "tabs":
        text = "\n".join(_tabs(line) for line in text.split("\n"))
    return text


def _tabs(line: str) -> str:
    stripped = line.lstrip(" ")
    return "\t" * ((len(line) - len(stripped)) // 4) + stripped


@pytest.mark.skipif(
    not all(os.path.exists(os.path.join(STDLIB, m)) for m in MODULES), reason="stdlib layout"
)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(MODULES),
    kind=st.sampled_from(sorted(KINDS)),
    pick=st.integers(min_value=0),
    how=st.sampled_from(["unparse", "drop decorators", "tabs"]),
    crlf=st.booleans(),
)
def test_splice_into_real_modules_keeps_everything_outside_the_node(name, kind, pick, how, crlf):
    text = load(name)[0]
    text = text.replace("\n", "\r\n") if crlf else text
    node = pick_def(name, kind, pick)
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    row = text.split("\n")[first - 1].rstrip("\r")
    suspect = Suspect(
        os.path.join(STDLIB, name), node.name, first, len(row) - len(row.lstrip()),
        node.end_lineno, 0, "property test", 1.0, node.lineno,
    )  # fmt: skip
    after = splice(text, suspect, rewrite(node, how))
    head, tail = outside(text, node)
    assert after.startswith(head)
    assert after.endswith(tail)
    middle = after[len(head) : len(after) - len(tail)]
    assert MARKER in middle
    compile(after, name, "exec", dont_inherit=True)
    if node.decorator_list and how == "drop decorators":
        assert middle.startswith(text[len(head) :].split("\n", 1)[0])  # original decorator kept
    assert f"def {node.name}(" in middle
    assert ("\r\n" in middle) == crlf and ("\n" in middle.replace("\r\n", "")) != crlf


@settings(max_examples=10, deadline=None)
@given(
    name=st.sampled_from(MODULES),
    kind=st.sampled_from(sorted(KINDS)),
    pick=st.integers(min_value=0),
)
def test_splicing_a_function_onto_itself_changes_nothing(name, kind, pick):
    text = load(name)[0]
    node = pick_def(name, kind, pick)
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    row = text.split("\n")[first - 1]
    suspect = Suspect(
        "m.py",
        node.name,
        first,
        len(row) - len(row.lstrip()),
        node.end_lineno,
        0,
        "x",
        1.0,
        node.lineno,
    )
    assert splice(text, suspect, function_source(text, suspect)) == text
