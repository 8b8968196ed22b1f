"""locate(): the test expected an exception of the project's and none came (`DID NOT RAISE`,
`E not raised`; issue 22, ranking): of the suspects the spectrum ties, a def that raises it for
other inputs comes first; above the spectrum's more suspicious defs only when few defs raise it."""

import pytest
from heal_ls.locate import locate

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

AGES = """\
class AgeError(ValueError):
    pass


def _digits(text):
    if text and not text.isdigit():
        raise AgeError(f"not a number: {text!r}")
    return text


def _blank(text):
    return text.strip()


def parse_age(text):
    if not text.strip():
        return _blank(text)
    return int(_digits(text))
"""
TEST = """\
import pytest

from ages import AgeError, parse_age


def test_a_blank_age_is_refused():
    with pytest.raises(AgeError):
        parse_age("  ")
"""


# six more refusals of AgeError, as a project whose every check raises its one error
CHECKS = "".join(
    f"\n\ndef _check_{n}(text):\n    if len(text) > {n + 9}:\n        raise AgeError(text)\n"
    for n in range(6)
)


def ranked(tmp_path, error, test: str = TEST, only_failing=(), module: str = AGES) -> list[str]:
    """The ranking when the failing test ran every def of `module`, the 4 passing tests all
    but `only_failing`."""
    here, test_path = write_project(tmp_path, "ages", module, test)
    names = (
        "parse_age",
        "_digits",
        "_blank",
        *(f"_check_{n}" for n in range(6) if CHECKS in module),
    )
    common = [
        key
        for key in keys_of(here, module, names)
        if key not in keys_of(here, module, only_failing)
    ]
    nodeid = "tests/test_ages.py::test_a_blank_age_is_refused"
    failure = failing_test(test_path, nodeid, line_of(test, "with "), error, [], common)
    failure.covered = keys_of(here, module, names)
    ranking = ranked_among_passing(tmp_path, failure, common)
    # parse_age, called in the block, comes first whatever the spectrum says
    return [name for name in ranking if name != "parse_age"]


def test_of_defs_the_spectrum_ties_the_one_that_raises_it_for_other_inputs_comes_first(tmp_path):
    # every test ran all three (one Ochiai); without the rule the test's name lifts _blank
    error = ("Failed", "DID NOT RAISE <class 'ages.AgeError'>")
    assert ranked(tmp_path, error)[0] == "_digits"


def test_unittest_words_name_the_exception_too(tmp_path):
    test = TEST.replace("with pytest.raises(AgeError):", "with self.assertRaises(AgeError):")
    assert ranked(tmp_path, ("AssertionError", "AgeError not raised"), test)[0] == "_digits"


@pytest.mark.parametrize(
    "message",
    # assertRaises(AgeError, msg=...); the callable form with a partial, named by its str
    [
        "AgeError not raised : a blank age is refused",
        "AgeError not raised by functools.partial(<function parse_age at 0x7f3a>, '  ')",
    ],
)
def test_unittest_words_with_a_msg_or_a_callable_name_the_exception_too(tmp_path, message):
    test = TEST.replace("with pytest.raises(AgeError):", "with self.assertRaises(AgeError):")
    assert ranked(tmp_path, ("AssertionError", message), test)[0] == "_digits"


def test_a_builtin_exception_names_no_raiser(tmp_path):
    # ValueError is raised for countless reasons: that a def raises it says little
    error = ("Failed", "DID NOT RAISE <class 'ValueError'>")
    assert ranked(tmp_path, error)[0] == "_blank"


def test_one_of_few_raisers_comes_before_a_def_only_the_failing_test_ran(tmp_path):
    # one def of those the test ran refuses with AgeError: a specific refusal, above the spectrum
    error = ("Failed", "DID NOT RAISE <class 'ages.AgeError'>")
    assert ranked(tmp_path, error, only_failing=("_blank",))[0] == "_digits"


def test_one_of_many_raisers_stays_below_a_def_only_the_failing_test_ran(tmp_path):
    # the project raises its error from every check, and the fix may add a def's first
    # refusal: raising it does not outweigh a more suspicious spectrum
    error = ("Failed", "DID NOT RAISE <class 'ages.AgeError'>")
    module = AGES + CHECKS
    assert ranked(tmp_path, error, only_failing=("_blank",), module=module)[0] == "_blank"


def test_another_failure_in_the_block_is_not_a_missing_raise(tmp_path):
    here, test_path = write_project(tmp_path, "ages", AGES, TEST)
    covered = keys_of(here, AGES, ("parse_age", "_digits", "_blank"))
    nodeid = "tests/test_ages.py::test_a_blank_age_is_refused"
    error = ("AssertionError", "assert '' == 0")
    failure = failing_test(test_path, nodeid, line_of(TEST, "parse_age("), error, [], covered)
    assert locate(failure, str(tmp_path), None).suspects[0].qualname != "_digits"
