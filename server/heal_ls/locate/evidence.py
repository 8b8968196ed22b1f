"""Small readings of a failure for the ranker: the callee a signature error names, the
method a protocol error names, where the test is, why a frame is or is not a target."""

from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import dataclass

from heal_ls.locate.calls import statement_parts
from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.locate.state import lacked
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.pysource.parse import Def, name_of, sole_return, statements_holding
from heal_ls.pysource.paths import TestFiles, relative_path

# The Python heal-ls parses workspace code with (its own, whatever the project's interpreter).
OWN_PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"

_SIGNATURE_ERROR = re.compile(
    r"^(?P<name>[\w.<>]+)\(\) (?:got an unexpected keyword argument|got multiple values for"
    r"|missing \d+ required (?:positional|keyword-only) argument|takes (?:from )?\d+ "
    r"(?:to \d+ )?positional argument|takes no arguments|got some positional-only arguments)"
)


def signature_error_callee(failure: Failure) -> str | None:
    """The qualname a TypeError about call arguments names, else None."""
    if failure.exc_type != "TypeError":
        return None
    found = _SIGNATURE_ERROR.match(failure.message.strip())
    return found.group("name") if found else None


_PROTOCOL_ERROR = re.compile(
    r"^(?:(?P<builtin>iter|next|len|str|repr|hash|bool|int|float|index)\(\)|(?P<dunder>__\w+__)"
    r"(?:\(\))?) (?:returned|should return)"
)


def namesake_order(failure: Failure, caller: Frame, place: tuple[str, FunctionNode]):
    """A sort key for defs of ours sharing the qualname a signature error names (a subclass
    named as its base): first the one whose class a local of the calling frame names with its
    module (`klass: <class 'pkg.zpt.loader.TemplateLoader'>`), then one that ran."""
    path, node = place
    owner = node.qualname.rsplit(".", 1)[0].rsplit(".", 1)[-1] if "." in node.qualname else ""
    named = [found for value in caller.locals.values() if (found := named_class(value))]
    by_local = any(c.name == owner and c.held_in(path) for c in named)
    return not by_local, f"{path}:{node.start_line}" not in failure.covered


def protocol_error_method(failure: Failure) -> str | None:
    """The dunder a "X() returned non-Y" TypeError blames (`iter()` -> `__iter__`), else None."""
    if failure.exc_type not in ("TypeError", "ValueError"):
        return None
    found = _PROTOCOL_ERROR.match(failure.message.strip())
    if found is None:
        return None
    return found["dunder"] or f"__{found['builtin']}__"


def contrasted(failure: Failure, run: RunResult | None, called) -> bool:
    """Did some passing test run one of the functions the failing test calls itself?"""
    if run is None:
        return False
    keys = {f"{path}:{node.start_line}" for path, node in called}
    return any(keys.intersection(t.covered) for t in run.tests if t.outcome == "passed")


def location_of_test(failure: Failure, frames: list[Frame]) -> tuple[str | None, int | None]:
    if failure.test_path and failure.test_line:
        own = os.path.realpath(failure.test_path)
        if frames and all(os.path.realpath(f.path) != own for f in frames):
            # The test method is inherited from a mixin in another file (tests/__init__.py)
            return frames[-1].path, frames[-1].line
        return failure.test_path, failure.test_line
    if frames:  # the innermost workspace frame is in a test file here
        return frames[-1].path, frames[-1].line
    return failure.test_path, failure.test_line


# Python's own words for an operation on a value of the wrong kind (`with 3:`, `3[0]`). Not
# None: a call that returns None found nothing, which may be the input's doing or a deeper
# function's (a pattern that did not match), not a value made wrong.
_WRONG_KIND = re.compile(r"^'(?!NoneType')\w+' object (is not|does not|cannot)\b")


def crashed_on_a_value(failure: Failure, tests: TestFiles) -> bool:
    """Did the test's own statement crash on a value of the wrong kind (`'int' object does not
    support the context manager protocol` on `with attempt:`)? Python raised it on the value,
    so what made the value, not the statement, is wrong."""
    last = failure.frames[-1] if failure.frames else None
    if last is None or last.path not in tests:
        return False
    kind = failure.exc_type.rsplit(".", 1)[-1] == "TypeError"
    return kind and _WRONG_KIND.match(failure.message.strip()) is not None


def raised_reason(failure: Failure, innermost: Frame) -> str:
    if failure.timed_out:
        return "stuck here when the test timed out"
    last = failure.frames[-1] if failure.frames else innermost
    if last is innermost or (last.path, last.line) == (innermost.path, innermost.line):
        return "raised here"
    return f"raised in {last.function} ({os.path.basename(last.path)}), called from here"


def module_level_reason(frame: Frame, root: str, index: ModuleIndex | None) -> str:
    where = f"{relative_path(frame.path, root)}:{frame.line}"
    owner = index.class_at(frame.line) if index else None
    if owner is not None:
        return f"raised in the body of class {owner.qualname} at {where}, not inside a function"
    if index is None:
        return (
            f"{where} does not parse on heal-ls's Python {OWN_PYTHON} (a syntax error, undecodable,"
            " or a newer Python's syntax): fix it by hand, or run heal-ls on the project's Python"
        )
    return f"raised at module level at {where}, not inside a function"


def always_raises(index: ModuleIndex | None, node: FunctionNode) -> bool:
    """Does the def end in an unconditional `raise E(...)` with no `return` before it (a raise
    helper like `raise_syntax_error(message)`)? Then its caller chose to raise, and what."""
    found = def_of(index, node)
    if found is None or not found.body:
        return False
    last = found.body[-1]
    returns = any(isinstance(n, ast.Return) for n in ast.walk(found))
    return isinstance(last, ast.Raise) and last.exc is not None and not returns


def raises_at(index: ModuleIndex | None, node: FunctionNode, line: int) -> bool:
    """Is `line` a `raise` statement of the def (it refused on purpose, as it was written to),
    not a crash of an expression there?"""
    found = def_of(index, node)
    return found is not None and any(
        isinstance(raised, ast.Raise) and raised.lineno <= line <= (raised.end_lineno or line)
        for raised in ast.walk(found)
    )


def rejected_argument(index: ModuleIndex | None, node: FunctionNode, line: int) -> str | None:
    """The parameter a `raise E(f"... {n} ...")` at `line` reports as invalid (`self`/`cls`
    aside), or that the `if` guarding it alone tests (`if not os.path.exists(path): raise
    IOError(...)`), else None: the def checked what it was given and refused it, so the value
    came wrong from its caller."""
    found = def_of(index, node)
    if found is None:
        return None
    params = _parameters(found)
    raised = _raise_at(found, line)
    if raised is None:
        return None
    reads = _reported(raised)
    return next((name for name in reads if name in params), None) or _guarded(found, raised, params)


_QUOTED_NAME = re.compile(r"[`'\"](\w+)")  # `content_type`, 'port', `headers[Content-Type]`


def named_argument(index: ModuleIndex | None, node: FunctionNode, line: int) -> str | None:
    """The parameter the message of the `raise E("...")` at `line` quotes by name, as its
    caller would write it (`You cannot define both `content_type` and `headers``: a parameter
    or a key looked up in the `**kwargs` parameter), when an `if` around the raise reads that
    parameter: the def refused what its caller passed, by name, else None."""
    found = def_of(index, node)
    raised = _raise_at(found, line) if found is not None else None
    if found is None or raised is None:
        return None
    words = {
        w
        for a in ast.walk(raised)
        if isinstance(a, ast.Constant) and isinstance(a.value, str)
        for w in _QUOTED_NAME.findall(a.value)
    }
    named = {p for p in _parameters(found) if p in words or _keys(found, p) & words}
    guards = [
        g
        for g in ast.walk(found)
        if isinstance(g, ast.If) and any(raised in ast.walk(s) for s in g.body)
    ]
    read = {n.id for g in guards for n in ast.walk(g.test) if isinstance(n, ast.Name)}
    return min(named & read, default=None)


def _keys(found: Def, kwargs: str) -> set[str]:
    """The keys the def looks up in its `**kwargs` parameter (`"headers" in kwargs`,
    `kwargs["headers"]`); empty for any other parameter."""
    if found.args.kwarg is None or found.args.kwarg.arg != kwargs:
        return set()
    looked: list[ast.expr] = []
    for n in ast.walk(found):
        if isinstance(n, ast.Compare) and any(_named(c, kwargs) for c in n.comparators):
            looked.append(n.left)
        elif isinstance(n, ast.Subscript) and _named(n.value, kwargs):
            looked.append(n.slice)
    return {k.value for k in looked if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _raise_at(found: Def, line: int) -> ast.Raise | None:
    """The `raise E(...)` of the def spanning `line`; None for any other raise."""
    for raised in ast.walk(found):
        if isinstance(raised, ast.Raise) and raised.lineno <= line <= (raised.end_lineno or line):
            return raised if isinstance(raised.exc, ast.Call) else None
    return None


def _reported(raised: ast.Raise) -> list[str]:
    """The names the raised exception's arguments read."""
    exc = raised.exc
    args = exc.args if isinstance(exc, ast.Call) else []
    return [n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)]


def derived_argument(index: ModuleIndex | None, node: FunctionNode, line: int) -> str | None:
    """The parameter a local that the `raise E(f"... {lang!r}")` at `line` reports was made
    from by calls on it alone (`rejected_argument` names the parameter itself), else None."""
    found = def_of(index, node)
    if found is None:
        return None
    params = _parameters(found)
    raised = _raise_at(found, line)
    reads = _reported(raised) if raised is not None else []
    return next((p for p in (_made_from(found, n, params) for n in reads) if p), None)


def _made_from(found: Def, name: str, params: set[str]) -> str | None:
    """The parameter a local was made from by calls on it alone (`parts = text.split(sep)`,
    `lang = parts.pop(0).lower()`: `lang` is `text`'s), each step the local's only
    assignment; None when a step calls a function on it or reads another name first."""
    seen: set[str] = set()
    while name and name not in params and name not in seen:
        seen.add(name)
        values = [
            a.value
            for a in ast.walk(found)
            if isinstance(a, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in a.targets)
        ]
        name = _receiver(values[0]) if len(values) == 1 else ""
    return name if name in params else None


def _receiver(value: ast.expr) -> str:
    """The name a chain of method calls, attributes and subscripts starts from
    (`parts.pop(0).lower()`: parts); "" for a call of a plain function."""
    while isinstance(value, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(value, ast.Call) and not isinstance(value.func, ast.Attribute):
            return ""
        value = value.func if isinstance(value, ast.Call) else value.value
    return value.id if isinstance(value, ast.Name) else ""


def _guarded(found: Def, raised: ast.Raise, params: set[str]) -> str | None:
    """The one parameter the `if` whose body starts with `raised` asks a predicate about
    (`if not os.path.exists(path)`, `if not callable(key)`), when its test reads no other name
    but the predicates' own: the def asked whether what it was handed is usable. A threshold
    (`if count < 0`) is the def's own rule, not a question about the argument."""
    for guard in ast.walk(found):
        if isinstance(guard, ast.If) and guard.body and guard.body[0] is raised:
            names = {n.id for n in ast.walk(guard.test) if isinstance(n, ast.Name)}
            calls = [n for n in ast.walk(guard.test) if isinstance(n, ast.Call)]
            asked = {a.id for c in calls for a in c.args if isinstance(a, ast.Name)} & params
            roots = {_root(c.func) for c in calls}
            if len(asked) == 1 and names - asked <= roots:
                return asked.pop()
    return None


def _root(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


NONE_REFUSED = "'NoneType' object"  # `... has no attribute`, `... is not subscriptable`, ...


def none_argument(
    index: ModuleIndex | None, node: FunctionNode, frame: Frame, message: str
) -> str | None:
    """The parameter read at the frame's line that held None when the line raised on a None
    (`node.parent` with `node=None`), else None: the def was handed None, which it cannot take,
    so the value came wrong from its caller (like a refusal naming the argument), or a
    builtin it handed it to refused None (`re.match(pattern, text)`: `..., got 'NoneType'`)."""
    if not message.startswith(NONE_REFUSED) and refused_kind(message) != "NoneType":
        return None
    held = sorted(
        n for n in arguments_read(index, node, frame.line) if frame.locals.get(n) == "None"
    )
    return held[0] if held else None


def wrong_kind_argument(
    index: ModuleIndex | None, node: FunctionNode, frame: Frame, message: str
) -> str | None:
    """The parameter whose attribute the frame's line read (`tree.children`) when Python said
    an object of the kind it held, by its recorded repr, has none (`'Token' object has no
    attribute 'children'`, `tree = Token('INT', '123')`), or that the line read when a
    builtin refused the kind it held (`open(filename)`: `expected str, bytes or os.PathLike
    object, not ConfigQuotedString`), or that the line called when Python could not call the
    kind it held (`send(...)`: `'str' object is not callable`): the def was handed a kind of
    value it does not handle, as `none_argument` one that is None."""
    found = def_of(index, node)
    lacking = lacked(message)
    called = uncallable_kind(message)
    kind = lacking[0] if lacking is not None else called or refused_kind(message)
    if found is None or kind is None or index is None or index.tree is None:
        return None
    if handles_kind(node, kind):  # it was handed what it handles: it read the wrong attribute
        return None
    if called is not None:
        read = {
            n.func.id
            for p in statement_parts(index.tree.body, frame.line)
            for n in ast.walk(p)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
    elif lacking is None:
        read = arguments_read(index, node, frame.line)
    else:
        read = {
            n.value.id
            for p in statement_parts(index.tree.body, frame.line)
            for n in ast.walk(p)
            if isinstance(n, ast.Attribute)
            and n.attr == lacking[1]
            and isinstance(n.value, ast.Name)
        }
    held = [
        n
        for n in read & _parameters(found)
        if _of_kind(frame.locals.get(n, ""), kind)
        # a literal is never callable, so a def calling one was handed it; a builtin refusing
        # one (`CARDINAL_WORDS[1.0]`) may be the def's own mistake with what it takes
        or (called is not None and literal_class(frame.locals.get(n, "")) == kind)
    ]
    return min(held, default=None)


# `, not X` (most builtins), `, got 'X'` (`re` since 3.11; 3.8-3.10 name no kind there)
_REFUSED_KIND = re.compile(r", (?:not|got) '?(?P<kind>\w+)'?$")
# a class's method called on another kind (`bytes.decode(s)`), worded alike in 3.8-3.13
_DESCRIPTOR_REFUSED = re.compile(
    r"^descriptor '\w+' for '\w+' objects doesn't apply to a '(?P<kind>\w+)'"
)
_UNCALLABLE = re.compile(r"^'(?P<kind>\w+)' object is not callable$")


def refused_kind(message: str) -> str | None:
    """The class a builtin's TypeError says it does not take (`expected str, bytes or
    os.PathLike object, not ConfigQuotedString`, `must be real number, not str`, `expected
    string or bytes-like object, got 'NoneType'`, `descriptor 'decode' for 'bytes' objects
    doesn't apply to a 'NoneType' object`)."""
    found = _REFUSED_KIND.search(message.strip()) or _DESCRIPTOR_REFUSED.match(message.strip())
    return found["kind"] if found else None


def uncallable_kind(message: str) -> str | None:
    """The class of the value Python could not call (`'str' object is not callable`)."""
    found = _UNCALLABLE.match(message.strip())
    return found["kind"] if found else None


def handles_kind(node: FunctionNode, kind: str) -> bool:
    """Is the def named for a kind of object (`visit_DictComp` for a `DictComp`)?"""
    return kind.lower() in node.name.lower().split("_")


_REPR_HEAD = re.compile(r"^[<\[]?(?P<name>[\w.]+)")


def _of_kind(value: str, kind: str) -> bool:
    """Is a recorded repr one of an object of class `kind`?"""
    return repr_class(value) == kind


def literal_class(value: str) -> str | None:
    """The builtin class of a recorded repr that is a literal (`'send'`: str), else None."""
    try:
        return type(ast.literal_eval(value)).__name__
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def repr_class(value: str) -> str | None:
    """The class name a recorded repr starts with (`Token('INT', '1')`, `<lark.lexer.Token
    object at 0x...>`, `[ConfigQuotedString: a.conf]`), else None."""
    head = _REPR_HEAD.match(value)
    return head["name"].rsplit(".", 1)[-1] if head is not None else None


# A recorded repr naming a class by its module: the class itself, or an instance's default repr
_CLASS_IN_MODULE = re.compile(r"^<(?:class '(?P<cls>[\w.]+)'>|(?P<instance>[\w.]+) object at 0x)")


@dataclass(frozen=True)
class NamedClass:
    """The class a recorded value names: `name`, and the module it says holds it, if any."""

    name: str
    module: str | None = None

    def held_in(self, path: str) -> bool:
        """Is `path` the file of the module named (`src/pkg/mod.py` for `pkg.mod`)? A module
        re-exporting the class (`<class 'trio.Cancelled'>`) is not where it is defined."""
        if self.module is None:
            return False
        parts = os.path.splitext(os.path.normpath(path))[0].split(os.sep)
        wanted = self.module.split(".")
        return parts[-len(wanted) :] == wanted or parts[-len(wanted) - 1 :] == [*wanted, "__init__"]


def named_class(value: str) -> NamedClass | None:
    """The class a recorded value is or is an instance of: by module for `<class 'pkg.mod.C'>`
    and `<pkg.mod.C object at 0x...>`, by name alone for other reprs (`C(1)`, `<C=1>`)."""
    found = _CLASS_IN_MODULE.match(value)
    if found is not None:
        module, _, name = (found["cls"] or found["instance"]).rpartition(".")
        return NamedClass(name, module or None)
    name = repr_class(value)
    return NamedClass(name) if name else None


def reads_argument(index: ModuleIndex | None, node: FunctionNode, line: int) -> bool:
    """Does the statement at `line` read a parameter of its def (`self`/`cls` aside)? Then the
    value it failed on may have come wrong from the caller."""
    return bool(arguments_read(index, node, line))


def arguments_read(index: ModuleIndex | None, node: FunctionNode, line: int) -> set[str]:
    """The parameters of its def (`self`/`cls` aside) the statement at `line` reads."""
    found = def_of(index, node)
    if found is None or index is None or index.tree is None:
        return set()
    params = _parameters(found)
    parts = statement_parts(index.tree.body, line)
    return {n.id for p in parts for n in ast.walk(p) if isinstance(n, ast.Name) and n.id in params}


CONTAINER_READS = {"get", "pop", "setdefault"}  # `env.get(key)` takes out what is in it


def elements_of_arguments(
    index: ModuleIndex | None, node: FunctionNode, names: set[str]
) -> set[str]:
    """The parameters of its def (`self`/`cls` aside) that one of `names` was taken out of by
    an assignment in its body (`value = env["key"]`, `value = env.get("key")`): a value read
    out of a container the caller handed in was made where the container was filled."""
    found = def_of(index, node)
    if found is None:
        return set()
    params = _parameters(found)
    sources: set[str] = set()
    for statement in ast.walk(found):
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in names for t in statement.targets
        ):
            source = _container_read(statement.value)
            if source in params:
                sources.add(source)
    return sources


def _container_read(value: ast.expr) -> str | None:
    """`env[...]` or `env.get(...)` -> "env"."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        held = value.func.value if value.func.attr in CONTAINER_READS else None
    else:
        held = value.value if isinstance(value, ast.Subscript) else None
    return held.id if isinstance(held, ast.Name) else None


def def_of(index: ModuleIndex | None, node: FunctionNode) -> Def | None:
    """The parsed def of `node`, None when its module did not parse."""
    return index.def_node(node.def_line) if index is not None else None


# Calls that hand on the value they are called on, trimmed or recased (`code.lstrip()`): the
# content came from where it was made.
TRIMS = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold"}


def passed_on(
    index: ModuleIndex | None, node: FunctionNode, values: list[ast.expr]
) -> set[str] | None:
    """The parameters of its def (`self`/`cls` aside) that `values` only read (`value`,
    `value.source`, `items[0]`, `code.lstrip()`): what a call passed on of what it was given;
    None when one of them is computed here (a call, a literal, another local, `self`'s
    state)."""
    found = def_of(index, node)
    if found is None or not values:
        return None
    params = _parameters(found)
    roots = set()
    for value in values:
        while (inner := _read_from(value)) is not None:
            value = inner
        if not isinstance(value, ast.Name) or value.id not in params:
            return None
        roots.add(value.id)
    return roots


def _read_from(value: ast.expr) -> ast.expr | None:
    """What `value` reads its content from: `value` of `value.source`, `items[0]` and
    `value.lstrip()` (a TRIMS call with no arguments); None for anything else."""
    if isinstance(value, (ast.Attribute, ast.Subscript)):
        return value.value
    if isinstance(value, ast.Call) and not value.args and isinstance(value.func, ast.Attribute):
        return value.func.value if value.func.attr in TRIMS else None
    return None


def does_nothing(found: Def) -> bool:
    """Is the def's body, past its docstring, only `pass` or `...` (a hook's default, "by
    default a noop")? It computes and stores nothing."""
    body = found.body[1:] if ast.get_docstring(found) is not None else found.body
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is ...)
        for s in body
    )


def is_getter(index: ModuleIndex | None, node: FunctionNode) -> bool:
    """Does every `return` of the def hand back state read off a parameter, as stored, directly
    or through one local (`attrs = getattr(cls, "__attrs_attrs__", None)` ... `return attrs`,
    `return item.value`)? Such a def made nothing: what it returns was made where it was stored
    (`attr.fields(C)` returns what `@attr.s` put on C)."""
    found = def_of(index, node)
    if found is None:
        return False
    params = {a.arg for a in [*found.args.posonlyargs, *found.args.args]} - {"self"}
    returned = _returned(found)
    return bool(returned) and all(_read_off(v, params) for v in returned)


def _returned(found: Def) -> list[ast.expr]:
    """What each `return` of the def hands back, a local it returns replaced by the value last
    assigned to it (`attrs = getattr(cls, ...)` ... `return attrs`)."""
    nodes = list(ast.walk(found))
    made = {
        n.targets[0].id: n.value
        for n in nodes
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
    }
    returns = [n.value for n in nodes if isinstance(n, ast.Return) and n.value is not None]
    return [made.get(_name(v), v) for v in returns]


def returned_attributes(index: ModuleIndex | None, node: FunctionNode) -> set[str]:
    """The attributes a getter (`is_getter`) returns as read off a parameter (`return
    bound_logger._context`); empty for any other def."""
    found = def_of(index, node)
    if found is None or not is_getter(index, node):
        return set()
    return {v.attr for v in _returned(found) if isinstance(v, ast.Attribute)}


def forwards(index: ModuleIndex | None, node: FunctionNode) -> bool:
    """Is the def's whole body (its docstring aside) `return other(...)` handing on its own
    parameters, its object's state or constants (`return walk(self.filesystem, top, topdown)`)?
    Such a def computed nothing of what it returns: the function it called did."""
    found = def_of(index, node)
    returned = sole_return(found) if found is not None else None
    call = returned.value if returned is not None else None
    if found is None or not isinstance(call, ast.Call):
        return False
    params = _parameters(found) | {"self", "cls"}
    handed = [*call.args, *(k.value for k in call.keywords)]
    return all(_handed_on(v, params) for v in handed)


def _handed_on(value: ast.expr, params: set[str]) -> bool:
    """A parameter (`top`, `*args`), a constant, or state read off one (`self.filesystem`)."""
    if isinstance(value, ast.Starred):
        value = value.value
    if isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Constant) or _name(value) in params


def _name(value: ast.expr) -> str:
    return value.id if isinstance(value, ast.Name) else ""


def _read_off(value: ast.expr, params: set[str]) -> bool:
    """`param.attr` or `getattr(param, ...)`."""
    if isinstance(value, ast.Attribute):
        return _name(value.value) in params
    if isinstance(value, ast.Call) and _name(value.func) == "getattr" and value.args:
        return _name(value.args[0]) in params
    return False


def _parameters(found: Def) -> set[str]:
    arguments = found.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in every} - {"self", "cls"}


def unparsable_note(unparsable: dict[str, SyntaxError], root: str, reason: str) -> str | None:
    """Why modules were skipped: code in a newer Python's syntax (PEP 695 on 3.13) does not
    parse under the Python heal-ls runs on, whatever the project's interpreter. None when
    `reason` already names the module."""
    named = [(relative_path(p, root), e) for p, e in unparsable.items()]
    unnamed = [(path, err) for path, err in named if path not in reason]
    if not unnamed:
        return None
    path, err = unnamed[0]
    return (
        f"heal-ls runs on Python {OWN_PYTHON}, which cannot parse {path}"
        f" (line {err.lineno}: {err.msg}); if the project uses a newer Python's syntax, run"
        " heal-ls itself on that Python"
    )


def checks_for_tests(
    path: str, index: ModuleIndex | None, node: FunctionNode, tests: TestFiles
) -> bool:
    """Is the def test code kept outside a test file: a method of a unittest TestCase in a
    helper module beside the tests (`YAPFTest.assertCodeEqual` in yapftests/), or an assertion
    helper whose whole body asserts on its parameters (`def eq_(a, b, msg=None): assert a == b,
    msg`)? It checks what a test computed and computes nothing of the code under test: the
    failure it raises is the test's own check, never a suspect. A TestCase of a package with no
    test file beside it is the product of a testing library (Django's SimpleTestCase): its
    assertions are the code under test."""
    found = def_of(index, node)
    if found is None or index is None or index.tree is None:
        return False
    owner = index.class_at(node.start_line)
    if (
        owner is not None
        and node.qualname == f"{owner.qualname}.{node.name}"
        and beside_tests(path, tests)
    ):
        held = statements_holding(index.tree, owner.def_line)
        cls = next((c for c in held if isinstance(c, ast.ClassDef)), None)
        if cls is not None and any((name_of(b) or "").endswith("TestCase") for b in cls.bases):
            return True
    body = [s for s in found.body if not _is_docstring(s)]
    if len(body) != 1 or not isinstance(body[0], ast.Assert):
        return False
    read = {n.id for n in ast.walk(body[0].test) if isinstance(n, ast.Name)}
    return bool(read) and read <= _parameters(found)


def beside_tests(path: str, tests: TestFiles) -> bool:
    """Does the file's folder hold a test file (test_*.py, *_test.py, or one the run collected
    tests from: a project's own python_files, `checks/*check.py`)?"""
    folder = os.path.dirname(path)
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(
        tests.is_test_module(os.path.join(folder, name)) for name in names if name.endswith(".py")
    )


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
