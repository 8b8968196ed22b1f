"""What a fix brings that its module did not have: the allow-list behind "needs review".

A candidate that passes every test can still be wrong in ways no test sees: a special case for
the failing test's own input, a check of the clock, the PID, the environment or the files around
it (is this the sandbox?), reflection that reaches the test run. The rails (safety.py) refuse the
known-dangerous; this is the other way round. Compared with the original module, a fix may add:

- names the module already uses or defines, its functions' own locals, and pure builtins;
- imports of modules the module already imports, or of a small vetted stdlib set (no process,
  file, frame, clock, randomness or reflection powers);
- members of the vetted modules (not their clocks), and of other modules only those the module
  already used (`os.getpid` is new power; `.strip()` on a value is not);
- attributes by name only as a plain constant (`getattr(obj, "size", 0)`), no new dunders;
- literals, except non-trivial ones, compared or returned as they are, that also appear in
  the failing test's source (a special case for its input).

Anything else makes a passing fix "needs review": shown with these reasons, never applied
without the user's yes.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable

PURE_BUILTINS = frozenset(
    [
        "abs",
        "all",
        "any",
        "ascii",
        "bin",
        "bool",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "complex",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "format",
        "frozenset",
        "hash",
        "hex",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "next",
        "oct",
        "ord",
        "pow",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "slice",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
        "None",
        "True",
        "False",
        "NotImplemented",
        "Ellipsis",
        "super",
        "object",
        "property",
        "staticmethod",
        "classmethod",
        "print",
        "StopIteration",
        "getattr",
        "hasattr",
    ]
) | {name for name in dir(builtins) if name.endswith(("Error", "Warning", "Exception"))}
VETTED_MODULES = frozenset(
    [
        "math",
        "cmath",
        "re",
        "string",
        "itertools",
        "functools",
        "collections",
        "collections.abc",
        "operator",
        "bisect",
        "heapq",
        "statistics",
        "textwrap",
        "typing",
        "dataclasses",
        "enum",
        "copy",
        "numbers",
        "decimal",
        "fractions",
        "unicodedata",
        "json",
        "keyword",
        "difflib",
        "ipaddress",
        "datetime",
        "calendar",
        "warnings",
    ]
)
# Members of vetted modules that still read the clock or call by name (on any base).
CLOCK = frozenset(
    ["now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp", "methodcaller", "attrgetter"]
)
BUILTIN_NAMES = frozenset(dir(builtins))
# Attribute access by name: fine with a constant name (getattr(obj, "size", 0)), else reflection.
BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr"})
PLAIN_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__class__", "__init__"})
EQUALITY = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)  # how a special case asks
TRIVIAL_NUMBERS = frozenset({0, 1, 2, -1, 10, 100})


def review_reasons(original: str, candidate: str, test_sources: Iterable[str] = ()) -> list[str]:
    """Why `candidate` (the fixed module text) needs a person's review; [] when it adds only
    what the allow-list permits. `test_sources`: the failing tests' own source text."""
    try:
        before, after = Uses.of(original), Uses.of(candidate)
    except SyntaxError:
        return []  # a module that does not parse was refused long before
    reasons = []
    for module in sorted(after.imports - before.imports):
        if module not in VETTED_MODULES and module.split(".")[0] not in before.import_tops:
            reasons.append(f"imports `{module}`")
    allowed = before.names | before.defined | before.stored | PURE_BUILTINS | after.stored
    allowed |= after.defined  # a helper the fix adds: its own body is checked here too
    for name in sorted(after.names - allowed):
        if name in BUILTIN_NAMES or not before.star_import:  # else: from the star import
            reasons.append(f"uses `{name}`, new to the module")
    for member in sorted(after.module_members - before.module_members):
        reasons.append(f"uses `{member}`, new to the module")
    for attr in sorted(after.dunders - before.dunders):
        reasons.append(f"reaches `.{attr}` (interpreter internals)")
    for call in sorted(after.computed - before.computed):
        reasons.append(f"`{call}` with a computed or special attribute name")
    in_tests = [literals(source) for source in test_sources]
    for value in sorted(after.literals - before.literals, key=repr):
        if non_trivial(value) and any(value in found for found in in_tests):
            reasons.append(f"adds the literal {value!r}, which the failing test uses")
    return reasons


class Uses:
    """Names, attributes, imports and literals some code uses."""

    def __init__(self) -> None:
        self.names: set[str] = set()  # loaded names
        self.stored: set[str] = set()  # assigned names, parameters, imported names
        self.defined: set[str] = set()  # def and class names, at any depth
        self.imports: set[str] = set()
        self.import_tops: set[str] = set()
        self.module_members: set[str] = set()  # `os.getpid`: members of unvetted modules
        self.dunders: set[str] = set()  # `.__mro__`, `.__globals__`...
        self.computed: set[str] = set()  # getattr(x, name) with a name not a plain constant
        self.literals: set[object] = set()  # compared or returned as they are
        self.star_import = False
        self.aliases: dict[str, str] = {}  # local name -> module, for `import m [as n]`

    @classmethod
    def of(cls, text: str) -> Uses:
        uses = cls()
        for node in ast.walk(ast.parse(text)):
            uses.see(node)
        return uses

    def see(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                self.imported(alias.name, local)
        elif isinstance(node, ast.ImportFrom):
            if node.module and not node.level:
                self.imported(node.module, None)
            for alias in node.names:
                self.star_import |= alias.name == "*"
                self.stored.add(alias.asname or alias.name)
                if node.module and not node.level and node.module not in VETTED_MODULES:
                    self.module_members.add(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Name):
            (self.names if isinstance(node.ctx, ast.Load) else self.stored).add(node.id)
        elif isinstance(node, ast.arg):
            self.stored.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.defined.add(node.name)
        elif isinstance(node, ast.Attribute):
            if _is_dunder(node.attr) and node.attr not in PLAIN_DUNDERS:
                self.dunders.add(node.attr)
            module = self.aliases.get(node.value.id) if isinstance(node.value, ast.Name) else None
            if module is not None and module not in VETTED_MODULES:
                self.module_members.add(f"{module}.{node.attr}")
            if node.attr in CLOCK:  # `datetime.now()` however datetime was reached
                self.module_members.add(f".{node.attr}")
        elif isinstance(node, ast.Call) and _computed_attribute(node):
            self.computed.add(f"{node.func.id}()")  # type: ignore[attr-defined]
        elif isinstance(node, ast.Compare) and any(isinstance(op, EQUALITY) for op in node.ops):
            for operand in (node.left, *node.comparators):  # (a bound, `1 <= n <= 7`, is a rule)
                self.literals |= _plain_values(operand)
        elif isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
            self.literals |= _plain_values(node.value)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.stored.add(node.name)

    def imported(self, module: str, local: str | None) -> None:
        self.imports.add(module)
        self.import_tops.add(module.split(".")[0])
        if local is not None:
            self.stored.add(local)
            self.aliases[local] = module


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _computed_attribute(node: ast.Call) -> bool:
    """getattr/hasattr/setattr/delattr whose name is not a plain string constant."""
    if not isinstance(node.func, ast.Name) or node.func.id not in BY_NAME or len(node.args) < 2:
        return False
    name = node.args[1]
    return not (isinstance(name, ast.Constant) and isinstance(name.value, str)) or _is_dunder(
        name.value
    )


def _plain_values(node: ast.AST) -> set[object]:
    """The constants an operand or a returned value is made of, when it is a constant or a
    display of them (`"x"`, `[4, 3]`, `("a", 1)`): what a special case compares or answers.
    A key read (`row["qty"]`) or a call's argument is not one."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {v for element in node.elts for v in _plain_values(element)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return {ast.literal_eval(node)} if isinstance(node.op, ast.USub) else set()
    return set()


def literals(source: str) -> set[object]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}


def non_trivial(value: object) -> bool:
    """A value worth special-casing: a string of 2+ characters, a number other than the usual."""
    if isinstance(value, (str, bytes)):
        return len(value.strip()) >= 2
    if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
        return value not in TRIVIAL_NUMBERS
    return False
