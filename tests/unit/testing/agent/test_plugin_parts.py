"""The plugin's stdlib pieces in-process: safe repr, path rules, overlay import hook."""

import importlib
import sys
import traceback

import pytest
from heal_ls.testing.prestart import PLUGIN_DIR

sys.path.insert(0, PLUGIN_DIR)
import heal_overlay  # noqa: E402
import heal_report_parts as parts  # noqa: E402


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("boom")


class ExitingRepr:
    def __repr__(self):
        raise SystemExit(3)


def test_safe_repr_never_raises_and_is_bounded():
    assert parts.safe_repr(BrokenRepr()).startswith("<BrokenRepr instance")
    assert parts.safe_repr(ExitingRepr()) == "<repr failed: SystemExit>"
    assert len(parts.safe_repr("x" * 10_000)) <= parts.REPR_LIMIT
    assert len(parts.safe_repr(list(range(100_000)))) <= parts.REPR_LIMIT


def test_bounded_text_keeps_head_and_tail():
    text = "HEAD" + "-" * 20_000 + "TAIL"
    cut = parts.bounded_text(text, 1000)
    assert cut.startswith("HEAD") and cut.endswith("TAIL")
    assert "characters cut" in cut and len(cut) < 1100
    assert parts.bounded_text("short") == "short"


def test_path_rules(tmp_path):
    rules = parts.PathRules(str(tmp_path))
    assert rules.is_workspace(str(tmp_path / "shop" / "cart.py"))
    assert not rules.is_workspace(str(tmp_path / ".venv" / "lib" / "site-packages" / "x.py"))
    assert not rules.is_workspace("/usr/lib/python3/json/decoder.py")
    assert not rules.is_workspace("<frozen os>") and not rules.is_workspace("<string>")
    for name in ("tests/helpers.py", "test_cart.py", "cart_test.py", "conftest.py"):
        assert rules.is_test_file(str(tmp_path / name)), name
    assert not rules.is_test_file(str(tmp_path / "shop" / "testing_utils.py"))
    assert rules.is_runner(parts.__file__) and rules.is_runner(
        pytest.__file__.replace("pytest/", "_pytest/")
    )


def test_a_module_linked_into_the_workspace_is_workspace_code(tmp_path):
    root, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    (root / "pkg").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "real_calc.py").write_text("")
    (elsewhere / "test_far.py").write_text("")
    (root / "pkg" / "calc.py").symlink_to(elsewhere / "real_calc.py")
    (root / "pkg" / "tests").symlink_to(elsewhere, target_is_directory=True)
    rules = parts.PathRules(str(root))
    assert rules.is_workspace(str(root / "pkg" / "calc.py"))  # traced under the link's path
    assert not rules.is_workspace(str(elsewhere / "real_calc.py"))  # not by its own path
    assert rules.is_test_file(str(root / "pkg" / "tests" / "real_calc.py"))


def test_overlay_serves_text_with_real_path_and_no_bytecode(tmp_path):
    pkg = tmp_path / "h1pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("VALUE = 'disk'\n", encoding="utf-8")
    (pkg / "calc.py").write_text("def div(a, b):\n    return a / b\n", encoding="utf-8")
    overlay = {
        str(pkg / "__init__.py"): "VALUE = 'overlay'\n",
        str(pkg / "calc.py"): "def div(a, b):\n    x = 0\n    return a / x\n",
    }
    finder = heal_overlay.install(overlay)
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("h1pkg")
        calc = importlib.import_module("h1pkg.calc")
        assert package.VALUE == "overlay"
        with pytest.raises(ZeroDivisionError) as info:
            calc.div(1, 2)
        last = traceback.extract_tb(info.value.__traceback__)[-1]
        assert (last.filename, last.lineno, last.line) == (str(pkg / "calc.py"), 3, "return a / x")
        assert not (pkg / "__pycache__").exists()
    finally:
        heal_overlay.uninstall(finder)
        sys.path.remove(str(tmp_path))
        for name in ("h1pkg.calc", "h1pkg"):
            sys.modules.pop(name, None)
    assert finder not in sys.meta_path


def test_overlay_ignores_other_modules(tmp_path):
    finder = heal_overlay.OverlayFinder({str(tmp_path / "other.py"): "x = 1\n"})
    assert finder.find_spec("json") is None
    assert finder.find_spec("other", [str(tmp_path)]) is None  # named, but no such file on disk


def _raised(make):
    try:
        make()
    except Exception as exc:  # noqa: BLE001 - the exception under test
        return exc
    raise AssertionError("nothing raised")


def _wrap(inner, outer):
    try:
        inner()
    except Exception as error:
        raise outer from error


def test_the_chain_is_the_cause_or_the_printed_context_nearest_first():
    def lookup():
        return {}["key"]

    def missing():
        try:
            lookup()
        except KeyError:
            raise LookupError("no key") from None  # the context Python does not print

    def handled():
        try:
            lookup()
        except KeyError:
            raise AttributeError("key")  # noqa: B904 - its __context__ is the point

    exc = _raised(lambda: _wrap(handled, ValueError("bad")))
    chain = parts.chained_records(exc)
    assert [(c.exc_type, c.cause) for c in chain] == [("AttributeError", True), ("KeyError", False)]
    assert [f.function for f in chain[0].frames] == ["_wrap", "handled"]  # caught in _wrap
    assert [f.function for f in chain[1].frames] == ["handled", "lookup"]
    assert chain[1].message == "'key'" and chain[1].frames[0].locals == {}
    assert parts.chained_records(_raised(missing)) == []


def test_the_chain_is_bounded_and_stops_at_a_cycle():
    def deep(n):
        if n == 0:
            raise KeyError("first")
        _wrap(lambda: deep(n - 1), ValueError(n))

    assert len(parts.chained_records(_raised(lambda: deep(10)))) == parts.MAX_CHAIN
    first, second = ValueError("a"), ValueError("b")
    first.__context__, second.__context__ = second, first
    assert [c.message for c in parts.chained_records(first)] == ["b"]
