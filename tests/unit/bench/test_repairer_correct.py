"""A verified fix on the corpus is correct when it is the reference fix's code or passes the
reference fix's tests (bench/repairer.py)."""

from heal_ls.bench.repairer import correct, merged_operators, same_function
from heal_ls.models import OperatorCount
from helpers.projects import write_files
from helpers.rows import fix_row


def test_a_fix_equal_to_the_reference_is_correct_whatever_its_docstring_and_layout(tmp_path):
    healed = write_files(
        tmp_path / "healed", {"m.py": "class A:\n    def f(self, x):\n        return x>=1\n"}
    )
    reference = write_files(
        tmp_path / "reference",
        {"m.py": 'class A:\n    def f(self, x):\n        """Doc."""\n        return (x >= 1)\n'},
    )
    assert same_function(healed, reference, "m.py::A.f")
    assert not same_function(healed, reference, "m.py::A.g")  # not there: never the same
    assert correct(["m.py::A.f"], healed, reference, {}, {}) == "equal"


def test_another_fix_is_correct_only_when_it_passes_the_reference_fixs_tests(tmp_path):
    healed = write_files(tmp_path / "healed", {"m.py": "def f(x):\n    return x > 0\n"})
    reference = write_files(tmp_path / "reference", {"m.py": "def f(x):\n    return x >= 1\n"})
    on_reference = {"t::a": "PASSED", "t::b": "PASSED", "t::c": "FAILED"}
    after = {"t::a": "PASSED", "t::b": "PASSED", "t::c": "FAILED"}
    assert correct(["m.py::f"], healed, reference, after, on_reference) == "tests"
    assert correct(["m.py::f"], healed, reference, after | {"t::b": "FAILED"}, on_reference) == ""
    assert correct(["m.py::f"], healed, reference, after, {}) == ""  # nothing to go on: no


def test_operator_counts_of_several_heals_are_summed():
    one = fix_row(operators={"compare": OperatorCount(tried=2, seconds=1.5, won=0)})
    two = fix_row(
        operators={
            "compare": OperatorCount(tried=1, seconds=0.5, won=1),
            "name": OperatorCount(tried=1, seconds=0.2, won=0),
        }
    )
    merged = merged_operators([one, two, fix_row("failed")])
    assert merged == {
        "compare": OperatorCount(tried=3, seconds=2.0, won=1),
        "name": OperatorCount(tried=1, seconds=0.2, won=0),
    }
