"""The prompt: the function, the failing test only, error, frames, locals, callees, history."""

from pathlib import Path

import pytest
from heal_ls.heal.prompt import SYSTEM, build_prompt, render_prompt
from heal_ls.models import Attempt, Candidate, Failure, Frame, Suspect

MODULE = '''\
"""Shop."""

API_KEY = "sk-live-abcdefghijklmnopqrstuvwx"


def price_of(item):
    """Look an item's price up in the catalogue."""
    return {"apple": 3, "pear": 4}[item]


def unrelated_helper():
    return "THIS BODY MUST NOT BE SENT"


class Cart:
    def __init__(self):
        self.items = []

    def add(self, item, count=1):
        """Put `count` of an item in the cart."""
        self.items.append((item, count))

    def total(self):
        password = "hunter2secret"
        return sum(price_of(item) for item, count in self.items)  # ignores count

    def checkout(self) -> int:
        return self.total()
'''

TESTS = """\
from shop.cart import Cart


def test_other():
    assert "OTHER TEST BODY"


class TestCart:
    @pytest.mark.parametrize("n", [1, 2])
    def test_total(self, n):
        cart = Cart()
        cart.add("apple", n)
        assert cart.total() == 3 * n
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "tests").mkdir()
    module = tmp_path / "shop" / "cart.py"
    module.write_text(MODULE)
    (tmp_path / "tests" / "test_cart.py").write_text(TESTS)
    return tmp_path


def suspect_in(root: Path) -> Suspect:
    path = str(root / "shop" / "cart.py")
    return Suspect(path, "Cart.total", 23, 4, 25, 65, "innermost workspace frame", def_line=23)


def failure_in(root: Path, **changes) -> Failure:
    module, tests = str(root / "shop" / "cart.py"), str(root / "tests" / "test_cart.py")
    failure = Failure(
        id="tests/test_cart.py::TestCart::test_total[2]",
        test="tests/test_cart.py::TestCart::test_total[2]",
        exc_type="AssertionError",
        message="assert 3 == 6\n +  where 3 = total()",
        frames=[
            Frame("/usr/lib/python3/site-packages/_pytest/python.py", 100, "pytest_pyfunc_call"),
            Frame(tests, 13, "test_total", {"self": "<TestCart>", "n": "2", "cart": "<Cart>"}),
            Frame(module, 25, "total", {"self": "<Cart>", "password": "'hunter2secret'"}),
        ],
        test_path=tests,
        test_line=13,
    )
    for key, value in changes.items():
        setattr(failure, key, value)
    return failure


def test_carries_function_test_error_frames_and_locals(project):
    prompt = build_prompt(suspect_in(project), MODULE, failure_in(project), str(project), [])
    user = prompt.user
    assert prompt.system == SYSTEM
    assert "Fix the function `Cart.total` in shop/cart.py" in user
    assert "## Function `Cart.total` (shop/cart.py, lines 23-25)" in user
    assert "```python\ndef total(self):\n" in user  # dedented method
    assert "## Failing test `TestCart.test_total` (tests/test_cart.py)" in user
    assert '@pytest.mark.parametrize("n", [1, 2])\ndef test_total(self, n):' in user
    assert "AssertionError: assert 3 == 6" in user
    assert "  tests/test_cart.py:13 in test_total\n      assert cart.total() == 3 * n" in user
    assert "  shop/cart.py:25 in total\n      return sum(" in user
    assert "## Locals in `total` at line 25\n  self = <Cart>" in user
    assert "one ```python block" in user


def test_never_the_whole_file_nor_other_tests_nor_foreign_frames(project):
    user = build_prompt(suspect_in(project), MODULE, failure_in(project), str(project), []).user
    assert "THIS BODY MUST NOT BE SENT" not in user
    assert "OTHER TEST BODY" not in user
    assert "self.items.append" not in user  # a callee's body stays home
    assert "_pytest" not in user
    assert str(project) not in user  # paths are relative to the workspace


def test_callees_are_one_line_signatures_with_docstrings(project):
    suspect = Suspect(suspect_in(project).path, "Cart.checkout", 27, 4, 28, 27, "r", def_line=27)
    user = build_prompt(suspect, MODULE, failure_in(project), str(project), []).user
    assert "## Functions it calls (same module)\n  def Cart.total(self)" in user
    user = build_prompt(suspect_in(project), MODULE, failure_in(project), str(project), []).user
    assert "  def price_of(item)  # Look an item's price up in the catalogue." in user
    assert "def sum(" not in user  # builtins are not workspace functions


def test_secrets_are_masked_and_can_be_restored(project):
    prompt = build_prompt(suspect_in(project), MODULE, failure_in(project), str(project), [])
    assert "hunter2secret" not in prompt.user
    assert 'password = "***SECRET_1***"' in prompt.user
    assert "password = '***SECRET_1***'" in prompt.user  # the same value in the locals
    answer = 'def total(self):\n    password = "***SECRET_1***"\n'
    assert prompt.unmask(answer) == 'def total(self):\n    password = "hunter2secret"\n'


def test_history_keeps_the_last_three_with_reasons_and_code_only(project):
    history = [
        Attempt(
            Candidate(f"Sure!\n```python\ndef total(self):\n    return {n}\n```\nBye", "m", n),
            "failed",
            f"assert {n} == 6",
        )
        for n in range(1, 5)
    ]
    history[-1].outcome = "rejected"
    user = build_prompt(
        suspect_in(project), MODULE, failure_in(project), str(project), history
    ).user
    assert (
        "## Earlier attempts that did not work" in user and "(1 older attempts not shown)" in user
    )
    assert (
        "### Attempt 4 (rejected): assert 4 == 6\n```python\ndef total(self):\n    return 4" in user
    )
    assert "return 1\n" not in user and "Sure!" not in user


def test_long_messages_and_locals_are_clipped(project):
    failure = failure_in(project, message="x" * 10_000)
    failure.frames[-1].locals = {"big": "y" * 5000}
    user = build_prompt(suspect_in(project), MODULE, failure, str(project), []).user
    assert len(user) < 4000 and "...[truncated]" in user


def test_script_failure_and_timeout_hint(project):
    script = str(project / "shop" / "cart.py")
    failure = failure_in(
        project,
        id="script:shop/cart.py",
        test=None,
        test_path=None,
        test_line=None,
        script=script,
        timed_out=True,
        exc_type="Timeout",
        message="no answer in 3s",
    )
    user = build_prompt(suspect_in(project), MODULE, failure, str(project), []).user
    assert "It makes the script `shop/cart.py` fail" in user
    assert "the test timed out" in user and "## Failing test" not in user


def test_crlf_module_and_missing_test_file(project):
    crlf = MODULE.replace("\n", "\r\n")
    failure = failure_in(project, test_path=str(project / "gone.py"), test="gone.py::test_x")
    user = build_prompt(suspect_in(project), crlf, failure, str(project), []).user
    assert "\r" not in user and "def total(self):\n" in user
    assert "## Failing test" not in user


def test_render_prompt_shows_both_parts(project):
    prompt = build_prompt(suspect_in(project), MODULE, failure_in(project), str(project), [])
    text = render_prompt(prompt)
    assert text.startswith("--- system ---\n" + SYSTEM) and "--- user ---\nFix the function" in text


def test_module_level_names_the_target_reads_are_shown_masked(project):
    module = 'TAX = 0.2\nTOKEN = "sk-abcdefghijklmnopqrstuvwxyz"\nUNUSED = 1\n\n\ndef net(x):\n    return x * (1 + TAX), TOKEN\n'
    suspect = Suspect(str(project / "shop" / "cart.py"), "net", 6, 0, 7, 34, "r", def_line=6)
    prompt = build_prompt(suspect, module, failure_in(project), str(project), [])
    assert '## Module-level names it reads\n  TAX = 0.2\n  TOKEN = "***SECRET_1***"' in prompt.user
    assert "UNUSED" not in prompt.user


def test_locals_fall_back_to_workspace_frames_only(project):
    failure = failure_in(project)
    failure.frames = [
        Frame(str(project / "tests" / "test_cart.py"), 13, "test_total", {"n": "2"}),
        Frame(str(project / "shop" / "cart.py"), 8, "price_of", {"item": "'plum'"}),
        Frame("/usr/lib/python3/site-packages/lib.py", 5, "deep", {"secret_state": "1"}),
    ]
    user = build_prompt(suspect_in(project), MODULE, failure, str(project), []).user
    assert "## Locals in `price_of` at line 8\n  item = 'plum'" in user
    assert "secret_state" not in user and "n = 2" not in user
