"""locate(): the failing test's name as evidence (issue 22, ranking). Suspects the run's spectrum
alone ranks (near ties there are accidents of which tests exist) are lifted when their name
shares a word with the failing test's; what the traceback placed is not reordered."""

from heal_ls.locate import locate
from heal_ls.locate.affinity import failing_test_words, words
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test

ZONES = """\
def open_file(name):
    return name.strip() or None


def cache_for(name):
    return open_file(name)
"""
TEST = """\
import zones


def test_cache_for_an_empty_name():
    assert zones.LAST is not None
"""


def project(tmp_path):
    (tmp_path / "zones.py").write_text(ZONES)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_zones.py").write_text(TEST)
    here = str(tmp_path / "zones.py")
    return here, [f"{here}:1", f"{here}:5"]  # open_file first: the tie's path order


def failing(tmp_path, line, frames=(), exc="AssertionError", nodeid=None):
    here, keys = project(tmp_path)
    test_path = str(tmp_path / "tests" / "test_zones.py")
    nodeid = nodeid or "tests/test_zones.py::test_cache_for_an_empty_name"
    failure = Failure(
        id=nodeid,
        test=nodeid,
        exc_type=exc,
        message="assert None is not None",
        frames=[Frame(test_path, line, "test_cache_for_an_empty_name"), *frames],
        test_path=test_path,
        test_line=line,
        covered=keys,
    )
    passing = [Outcome("tests/test_zones.py::test_other", "passed", covered=keys)]
    return here, failure, RunResult(str(tmp_path), 1, 1, failures=[failure], tests=passing)


def test_words_split_names_fold_plurals_and_drop_common_words():
    assert words("TestSpecifier.test_specifiers") == {"specifier"}
    assert words("__get_gettz.<locals>.GettzFunc.nocache") == {"gettz", "func", "nocache"}
    failure = Failure(id="t", exc_type="E", message="", test="t.py::TestA::test_tz_casts[x-1]")
    assert failing_test_words(failure) == {"tz", "cast"} - {"tz"}  # 'tz' is too short to say much


def test_a_spectrum_tie_goes_to_the_function_the_test_is_named_for(tmp_path):
    _, failure, run = failing(tmp_path, 5)  # `assert zones.LAST is not None`: no call
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["cache_for", "open_file"]
    assert "the failing test is named for it (cache)" in located.suspects[0].reason


def test_the_traceback_order_is_not_changed_by_the_name(tmp_path):
    here = str(tmp_path / "zones.py")
    crash = [Frame(here, 6, "cache_for"), Frame(here, 2, "open_file")]
    _, failure, run = failing(tmp_path, 5, crash, exc="AttributeError")  # (frames made up)
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["open_file", "cache_for"]
    assert "named for it" not in located.suspects[1].reason


def test_a_spectrum_tie_goes_to_the_function_the_tests_class_is_named_for(tmp_path):
    """`TestCacheFor::test_an_empty_name`: the test's own name names neither function; its
    class gathers the tests of `cache_for`."""
    nodeid = "tests/test_zones.py::TestCacheFor::test_an_empty_name"
    _, failure, run = failing(tmp_path, 5, nodeid=nodeid)
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["cache_for", "open_file"]
    assert "the failing test's class is named for it (cache)" in located.suspects[0].reason
    failure.test = failure.id = "tests/test_zones.py::test_an_empty_name"  # no class: the tie
    assert [s.qualname for s in locate(failure, str(tmp_path), run).suspects][0] == "open_file"


BASE = """\
def spell(number):
    return merge(number)


def merge(number):
    return str(number)
"""
LANG = """\
def merge(number):
    return "un" if number == 1 else str(number)
"""


def test_of_tied_suspects_the_one_in_the_module_the_test_file_is_named_for_comes_first(tmp_path):
    """`tests/test_fr.py` checks `lang_fr.py`: the base module's functions tie with its
    (the same Ochiai, the same bonus), and the tie no longer goes by the order they ran in;
    two-letter words count. A higher score in another module still ranks above it."""
    (tmp_path / "base.py").write_text(BASE)
    (tmp_path / "lang_fr.py").write_text(LANG)
    (tmp_path / "tests").mkdir()
    test_path = str(tmp_path / "tests" / "test_fr.py")
    (tmp_path / "tests" / "test_fr.py").write_text("import base\n\n\ndef test_one():\n    x = 1\n")
    keys = [
        f"{tmp_path / 'base.py'}:1",
        f"{tmp_path / 'base.py'}:5",
        f"{tmp_path / 'lang_fr.py'}:1",
    ]
    nodeid = "tests/test_fr.py::test_one"
    failure = failing_test(test_path, nodeid, 5, ("AssertionError", "assert 1 == 'un'"), [], keys)
    run = RunResult(str(tmp_path), 0, 1, failures=[failure])
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["merge", "spell", "merge"]
    assert located.suspects[0].path == str(tmp_path / "lang_fr.py")
    run.tests = [Outcome("tests/test_fr.py::test_two", "passed", covered=keys[2:])]
    located = locate(failure, str(tmp_path), run)
    assert [s.path for s in located.suspects][-1] == str(tmp_path / "lang_fr.py")
