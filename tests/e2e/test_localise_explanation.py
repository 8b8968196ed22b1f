"""What pytest runs to explain a failed assert is not evidence, on a small project run for real.

When `assert cart.total() == 5` fails, pytest's rewritten assert calls `Cart.__repr__` (and
`Price.__repr__` through it) to show `cart`; when `assert cart.distinct() == once` fails on
the lengths, pytest's sequence explanation compares the items with `!=` (`Price.__eq__`), which
the comparison itself never did. Those methods ran only in failing tests, so contrast ranking put
them above the function with the bug. unittest alike: a failed `assertListEqual` calls
`safe_repr` and `pprint.pformat` (`Price.__repr__`) to build its message. The same methods called
by a test body are recorded.
"""

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.testing.options import RunOptions
from helpers.projects import write_files

FILES = {
    "pytest.ini": "[pytest]\npythonpath = src\ntestpaths = tests\n",
    "src/shop/__init__.py": "",
    "src/shop/cart.py": """
        class Price:
            def __init__(self, cents):
                self.cents = cents

            def __eq__(self, other):
                return isinstance(other, Price) and self.cents == other.cents

            def __repr__(self):
                return f"Price({self.cents})"


        class Cart:
            def __init__(self, prices):
                self.prices = list(prices)

            def total(self):
                if len(self.prices) > 1:
                    return sum(p.cents for p in self.prices[1:])
                return sum(p.cents for p in self.prices)

            def distinct(self):
                return sorted(self.prices, key=lambda p: p.cents)

            def __repr__(self):
                return f"Cart({self.prices!r})"
    """,
    "tests/test_cart.py": """
        from shop.cart import Cart, Price


        def test_total_of_one():
            assert Cart([Price(4)]).total() == 4


        def test_total():
            cart = Cart([Price(2), Price(3)])
            assert cart.total() == 5


        def test_distinct_of_one():
            assert len(Cart([Price(1)]).distinct()) == 1


        def test_distinct():
            cart, once = Cart([Price(1), Price(1)]), [Price(1)]
            assert cart.distinct() == once


        def test_repr():
            assert repr(Cart([])) == "Cart([])"


        def test_price_equality():
            assert Price(1) == Price(1)
    """,
    "tests/test_cart_case.py": """
        import unittest

        from shop.cart import Cart, Price


        class CartCase(unittest.TestCase):
            def test_distinct_of_one(self):
                self.assertEqual(len(Cart([Price(1)]).distinct()), 1)

            def test_distinct_list(self):
                cart, once = Cart([Price(1), Price(1)]), [Price(1)]
                self.assertListEqual(cart.distinct(), once)
    """,
}

FAILING = {
    "tests/test_cart.py::test_total": "Cart.total",
    "tests/test_cart.py::test_distinct": "Cart.distinct",
    # unittest explains with safe_repr and pprint.pformat: Price.__repr__
    "tests/test_cart_case.py::CartCase::test_distinct_list": "Cart.distinct",
}
EXPLAINING = ("Cart.__repr__", "Price.__repr__", "Price.__eq__")


def explaining(nodeid):
    """What only explained the failure: in a unittest case `assertListEqual`'s own `==` is the
    comparison (Price.__eq__ is evidence there); its safe_repr and pformat only explain."""
    if "::CartCase::" in nodeid:
        return {"Cart.__repr__", "Price.__repr__"}
    return set(EXPLAINING)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return write_files(tmp_path_factory.mktemp("shop"), FILES)


@pytest.fixture(scope="module")
def checked(project):
    return asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


def def_lines(project):
    """qualname -> "abs_path:line" key of each def in cart.py, as the plugin records it."""
    path = project / "src/shop/cart.py"
    keys, owner = {}, ""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("class "):
            owner = line[len("class ") : line.index(":")]
        elif line.strip().startswith("def "):
            name = line.strip()[len("def ") : line.strip().index("(")]
            keys[f"{owner}.{name}"] = f"{path}:{number}"
    return keys


def ran(checked, project, nodeid):
    run, _ = checked
    (test,) = [t for t in run.tests if t.nodeid == nodeid]
    names = {key: name for name, key in def_lines(project).items()}
    return {names[key] for key in test.covered if key in names}


@pytest.mark.parametrize("nodeid", sorted(FAILING))
def test_what_the_explanation_ran_is_not_recorded(checked, project, nodeid):
    covered = ran(checked, project, nodeid)
    assert FAILING[nodeid] in covered
    assert not covered & explaining(nodeid), covered


def test_the_same_methods_called_by_a_test_body_are_recorded(checked, project):
    assert "Cart.__repr__" in ran(checked, project, "tests/test_cart.py::test_repr")
    assert "Price.__eq__" in ran(checked, project, "tests/test_cart.py::test_price_equality")


@pytest.mark.parametrize("nodeid", sorted(FAILING))
def test_the_buggy_function_ranks_first(checked, nodeid):
    _, located = checked
    (where,) = [where for failure, where in located if failure.id == nodeid]
    qualnames = [s.qualname for s in where.suspects]
    assert qualnames[0] == FAILING[nodeid], where.suspects[:3]
    assert not set(qualnames) & explaining(nodeid), qualnames
