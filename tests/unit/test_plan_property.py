"""Property: for random modules and random sets of touched nodes, a planned edit changes no line
outside the touched nodes and the import block (checked with difflib, not with the plan's own
offsets), every untouched def keeps its exact source, and the result compiles."""

from __future__ import annotations

import difflib

from heal_ls.heal.plan import IMPORT_BLOCK, import_block_end, plan_answer
from heal_ls.locate import index_source, suspect_for
from heal_ls.pysource.splice import function_source
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PATH = "/p/mod.py"


@st.composite
def modules(draw):
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    if draw(st.booleans()):
        lines += ['"""Module doc."""', ""]
    if draw(st.booleans()):
        lines += ["from __future__ import annotations", ""]
    imports = draw(st.sampled_from([[], ["import os"], ["import os", "from typing import List"]]))
    lines += imports + ([""] if imports else [])
    for i in range(draw(st.integers(1, 4))):
        lines += ["", ""]
        if draw(st.booleans()):
            lines += [f"class C{i}:", f"{unit}x = {i}", ""]
            for j in range(draw(st.integers(1, 2))):
                lines += [f"{unit}def m{i}_{j}(self):", f"{unit * 2}return {j}  # c", ""]
        else:
            lines += [f"def f{i}(a):", f"{unit}# comment {i}"]
            if draw(st.booleans()):
                lines += [f"{unit}def inner{i}(b):", f"{unit * 2}return b + {i}", ""]
                lines += [f"{unit}return inner{i}(a)"]
            else:
                lines += [f"{unit}return a * {i}"]
    lines += ["", "VALUE = 1", ""]
    return newline.join(lines)


def _chosen(draw, functions: list) -> list:
    """The defs the answer sends, the target first. Drawn at random, a nested def is ~2% of the
    targets and an outer def sent with its nested one rarer still: a third of the draws ask for
    each (where the module has a nested def), so fewer examples try both."""
    chosen = draw(st.lists(st.sampled_from(functions), min_size=1, max_size=3, unique=True))
    nested = [f for f in functions if ".<locals>." in f.qualname]
    kind = draw(st.sampled_from(["outer and nested", "nested", "any"]))
    if kind == "any" or not nested:
        return chosen
    inner = draw(st.sampled_from(nested))
    outer = next(f for f in functions if f.qualname == inner.qualname.split(".<locals>.")[0])
    first = [inner] if kind == "nested" else [outer, inner]
    return first + [f for f in chosen if f not in first]


def _answer(draw, text: str):
    index = index_source(text)
    chosen = _chosen(draw, index.functions)
    target = chosen[0]
    offered = [f for f in chosen[1:] if ".<locals>." not in f.qualname]
    code = []
    use_math = draw(st.booleans())
    helper = draw(st.booleans()) and ".<locals>." not in target.qualname
    for f in chosen:
        params = "self" if "." in f.qualname and ".<locals>." not in f.qualname else "a"
        body = "math.floor(1.5)" if use_math else "42"
        if helper and f is target:
            body = f"_helper_x({body})"
        code.append(f"def {f.name}({params}):\n    return {body}\n")
    if helper:
        code.append("def _helper_x(v):\n    return v\n")
    header = "import math\n\n" if use_math else ""
    return target, offered, "```python\n" + header + "\n\n".join(code) + "```\n"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_nothing_outside_touched_nodes_and_import_block_changes(data):
    text = data.draw(modules())
    target_node, offered_nodes, answer = _answer(data.draw, text)
    target = suspect_for(PATH, target_node, "t")
    offered = [target, *(suspect_for(PATH, f, "t") for f in offered_nodes)]
    planned = plan_answer(answer, text, target, offered)
    if planned is None:
        return  # the plain shape: edit.splice and its own property test take it
    after = planned.text
    compile(after, PATH, "exec")
    index = index_source(text)
    touched = set(planned.touched)
    allowed = set()  # before-lines (0-based) that may change
    if IMPORT_BLOCK in touched:
        allowed |= set(range(text[: import_block_end(text)].count("\n") + 1))
    for f in index.functions:
        if f.qualname in touched or any(f.qualname.startswith(t + ".") for t in touched):
            allowed |= set(range(f.start_line - 1, f.end_line + 1))
    old, new = text.splitlines(keepends=True), after.splitlines(keepends=True)
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "delete" or op == "replace":
            assert set(range(i1, i2)) <= allowed, (op, old[i1:i2])
    after_index = index_source(after)
    for f in index.functions:
        if any(f.qualname == t or f.qualname.startswith(t + ".") for t in touched):
            continue
        if any(t.startswith(f.qualname + ".") for t in touched):
            continue  # an outer def around a touched nested one
        moved = after_index.find(f.qualname)
        assert moved is not None, f.qualname
        assert function_source(after, suspect_for(PATH, moved, "t")) == function_source(
            text, suspect_for(PATH, f, "t")
        )
