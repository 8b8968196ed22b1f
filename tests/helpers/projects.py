"""Small projects written by tests that need a precise shape (shared by e2e and LSP tests)."""

import textwrap


def write_files(root, files):
    """Write {relative path: indented text} under root (dedented, leading newline dropped)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


ORDERS = """class Order:
    def __init__(self, prices):
        self.prices = prices

    @property
    def subtotal(self):
        return sum(self.prices) - 1

    def total(self, tax):
        return self.subtotal * (1 + tax)
"""
TESTS = """from orders import Order


def test_subtotal():
    order = Order([1, 2])
    assert order.subtotal == 3


def test_total_with_tax():
    order = Order([10])
    assert order.total(0.5) == 15


def test_more_items_cost_more():
    assert Order([1]).total(0) < Order([1, 2]).total(0)
"""
FIXED_SUBTOTAL = "    @property\n    def subtotal(self):\n        return sum(self.prices)\n"


# An edit of the innocent `total` that makes its test pass around the wrong subtotal.
INNOCENT_TOTAL = "    def total(self, tax):\n        return (self.subtotal + 1) * (1 + tax)\n"


def write_shared_cause(root, *, fresh=True, guarded=True):
    """The project: `subtotal` is wrong; `total` is right but its test fails through it.
    fresh=False adds it to an existing project (which has its own conftest and tests/);
    guarded=False leaves out the passing test of subtotal, so its fix is weak."""
    if fresh:
        root.mkdir()
        (root / "conftest.py").write_text('"""Puts this folder on sys.path."""\n')
        (root / "tests").mkdir()
    (root / "orders.py").write_text(ORDERS)
    tests = TESTS if guarded else TESTS.split("\n\n\ndef test_more_items_cost_more")[0] + "\n"
    (root / "tests" / "test_orders.py").write_text(tests)
    return root


# The fix of examples/inventory's Inventory.remove (the LSP suites' heal target).
FIXED_REMOVE = '''def remove(self, name, count=1):
    """Take `count` items off the shelf; forget the name once none are left."""
    have = self.items[name]
    if count > have:
        raise ValueError(f"only {have} {name!r} left")
    self.items[name] = have - count
    if self.items[name] <= 0:
        del self.items[name]
'''


# shop/calc.py's total() is one off: a one-function project for the fix and apply tests
CALC = {
    "pytest.ini": "[pytest]\n",
    "shop/__init__.py": "",
    "shop/calc.py": "def total(items):\n    return sum(items) - 1\n",
}


# A class that lacks the member its test uses (`unhashable type: 'OUI'`): a class heal adds
# `__hash__` (heal/member.py; the CLI's tests/e2e/test_fix_member.py, the editor's
# tests/lsp/test_heal_member.py)
OUI = '''\
"""Organisation ids."""

REGISTRY = {}


class OUI:
    """An organisation id: equal by value."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, OUI) and self.value == other.value


def vendor(oui):
    return REGISTRY.get(oui.value, "unknown")
'''
OUI_TESTS = """\
from oui import OUI, vendor


def test_equal_by_value():
    assert OUI(1) == OUI(1) and OUI(1) != OUI(2)


def test_ouis_as_keys():
    assert {OUI(3): "acme"}[OUI(3)] == "acme"
"""
OUI_HASH = "```python\ndef __hash__(self):\n    return hash(self.value)\n```\n"
# hostile answers: the member, and __eq__ made to say yes to anything; a second new member
# beside the one the test needs
OUI_REWRITES_EQ = (
    "```python\nclass OUI:\n    def __eq__(self, other):\n        return True\n\n"
    "    def __hash__(self):\n        return 0\n```\n"
)
OUI_SECOND_MEMBER = OUI_HASH + "```python\ndef __ne__(self, other):\n    return False\n```\n"

# --doctest-modules collects `maths.py::maths.twice`: a module the map holds a test of, and code
DOCTESTED = {
    "pytest.ini": "[pytest]\naddopts = --doctest-modules\n",
    "maths.py": """
        def twice(x):
            '''
            >>> twice(2)
            4
            '''
            return x * 2
        """,
    "tests/test_maths.py": "from maths import twice\n\n\ndef test_twice():\n    assert twice(1) == 2\n",
}


def suspects_of(diagnosis, name: str):
    """The suspects `diagnose` ranked for the one failure whose id ends with `name`."""
    _, located = diagnosis
    (where,) = [where for failure, where in located if failure.id.endswith(name)]
    return where.suspects


# An interpreter whose `__call__` hands its `**kw` to `eval`, which lacks `raise_errors`, and a
# test that swallows the TypeError and fails on a later check (class W of issue 22).
INTERPRETER = """\
class Interpreter:
    def __init__(self):
        self.error = []

    def __call__(self, expr, **kw):
        return self.eval(expr, **kw)

    def eval(self, expr, lineno=0, show_errors=True):
        try:
            return eval(compile(expr, "<expr>", "eval"), {})
        except SyntaxError as exc:
            self.error.append(exc)
            if show_errors:
                print(exc)
"""
SWALLOWED = """\
from interpreter import Interpreter


def test_evaluates():
    assert Interpreter()("1 + 2", show_errors=False) == 3


def test_syntax_error_raises():
    interp = Interpreter()
    try:
        interp("1x = 1", show_errors=False, raise_errors=True)
    except Exception:
        pass
    assert interp.error
"""
