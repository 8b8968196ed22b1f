"""Generated modules: for any nesting of defs, classes, decorators and blocks, the index agrees
with what CPython compiles (__qualname__, co_firstlineno) and maps each body line back."""

import types

from heal_ls.locate import index_source
from hypothesis import given, settings
from hypothesis import strategies as st

KINDS = st.sampled_from(["def", "async def", "class"])
WRAPPERS = st.sampled_from([None, "if", "else", "try", "with", "for"])


@st.composite
def scopes(draw, depth=0):
    """A list of (kind, decorators, wrapper, children) nodes."""
    count = draw(st.integers(1, 3))
    nodes = []
    for _ in range(count):
        kind = draw(KINDS)
        children = draw(scopes(depth + 1)) if depth < 2 and draw(st.booleans()) else []
        nodes.append((kind, draw(st.integers(0, 2)), draw(WRAPPERS), children))
    return nodes


def render(nodes, indent="", counter=None):
    """Source lines for the nodes; every function body ends with a line marking its name."""
    counter = counter if counter is not None else [0]
    lines = []
    for kind, decorators, wrapper, children in nodes:
        counter[0] += 1
        name = f"n{counter[0]}"
        pad = indent
        if wrapper == "if":
            lines.append(f"{indent}if True:")
            pad += "    "
        elif wrapper == "else":
            lines += [f"{indent}if False:", f"{indent}    pass", f"{indent}else:"]
            pad += "    "
        elif wrapper == "try":
            lines.append(f"{indent}try:")
            pad += "    "
        elif wrapper == "with":
            lines.append(
                f"{indent}with open(__file__) if False else __import__('contextlib').nullcontext():"
            )
            pad += "    "
        elif wrapper == "for":
            lines.append(f"{indent}for _ in [1]:")
            pad += "    "
        lines += [f"{pad}@(lambda f: f)" for _ in range(decorators)]
        lines.append(f"{pad}{kind} {name}{'' if kind == 'class' else '()'}:")
        lines += render(children, pad + "    ", counter)
        lines.append(f"{pad}    marker_{name} = [x for x in [lambda: 1]]")
        if wrapper == "try":
            lines += [f"{indent}except Exception:", f"{indent}    pass"]
    return lines


def code_objects(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from code_objects(const)


@settings(max_examples=60, deadline=None)
@given(scopes())
def test_index_agrees_with_cpython(nodes):
    source = "\n".join(render(nodes)) + "\n"
    index = index_source(source)
    compiled = {
        (co.co_firstlineno, co.co_name): co
        for co in code_objects(compile(source, "<gen>", "exec"))
        if co.co_name.startswith("n")
    }
    functions = {(f.start_line, f.name): f for f in index.functions}
    assert set(functions) == {key for key, co in compiled.items() if _is_function(co)}
    for key, node in functions.items():
        if hasattr(compiled[key], "co_qualname"):  # Python >= 3.11
            assert compiled[key].co_qualname == node.qualname
    lines = source.splitlines()
    for node in index.functions:  # the body's last line belongs to the function itself
        assert lines[node.end_line - 1].strip().startswith(f"marker_{node.name} =")
        assert index.function_at(node.end_line) == node
        assert index.function_for_frame(node.end_line, "<listcomp>") == node


def _is_function(co) -> bool:
    # Class bodies compile to code objects too; tell them apart by their flags (CO_NEWLOCALS).
    return bool(co.co_flags & 0x02)
