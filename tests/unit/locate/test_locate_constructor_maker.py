"""locate(): the failing check compares an attribute of an object whose class the evidence
names, and that class's constructor did not keep it as it came (issue 22, ranking, class A: the
constructor that made the checked state). It stored it and then handed `self` to a callable
that wrote it over (asgiref-0fb85a43's `functools.update_wrapper(self, func)` after `self.context
= context`), or, on an object the test made itself, computed it in a branch the test's
arguments sent it down (joblib-4ccc02d9's `if n_jobs is None:`): the constructor comes first.
A constructor that computed the value in no branch (h2-9a7ff743's `bytearray()`), one of an
object the test did not make, or one that only hands `self` to its base's constructor, made
how the object began as asked: it stays where it was."""

from pathlib import Path

from heal_ls.locate import locate
from heal_ls.models import Frame, RunResult, TestOutcome

from tests.helpers.locate import failing_test, line_of, write_project

WRAPPER = """\
import functools


class Wrapper:
    def __init__(self, func, context=None):
        self.func = func
        self.context = context
        functools.update_wrapper(self, func)


def wrap(func):
    return Wrapper(func)
"""
WRAPPER_TEST = """\
from wrapper import wrap


def test_context_is_not_copied():
    class Callable:
        def __init__(self):
            self.context = ...

    wrapped = wrap(Callable())
    assert wrapped.context is None
"""
WRAPPER_ERROR = (
    "AssertionError",
    "assert Ellipsis is None\n +  where Ellipsis = <wrapper.Wrapper object at 0x7f00>.context",
)

POOL = """\
DEFAULT = object()


def from_config(value):
    if value is DEFAULT:
        return 2
    return value


class Pool:
    def __init__(self, n_jobs=DEFAULT):
        n_jobs = from_config(n_jobs)
        if n_jobs is None:
            n_jobs = 1
        self.n_jobs = n_jobs
"""
POOL_TEST = """\
from pool import Pool


def test_none_means_unset():
    p = Pool(n_jobs=None)
    assert p.n_jobs == 2
"""
POOL_ERROR = ("AssertionError", "assert 1 == 2\n +  where 1 = <pool.Pool object at 0x7f00>.n_jobs")

UNBRANCHED = POOL.replace("        if n_jobs is None:\n            n_jobs = 1\n", "")
HANDED_TO_BASE = WRAPPER.replace(
    "class Wrapper:", "class Base:\n    def __init__(self):\n        pass\n\n\nclass Wrapper(Base):"
).replace("functools.update_wrapper(self, func)", "Base.__init__(self)")


def ranked(tmp_path: Path, module: str, text: str, test: str, error, defs, blocks=()):
    """What locate() ranks when the one test of `test` failed its `assert` line with `error`
    having run `defs` of `module` (needles of their first lines) and the branches starting at
    the lines of `blocks` (needles); four passing tests ran the defs and the blocks too, all
    but the first block."""
    here, test_path = write_project(tmp_path, module, text, test)
    keys = [f"{here}:{line_of(text, needle)}" for needle in defs]
    branches = [line_of(text, needle) for needle in blocks]
    nodeid = f"tests/test_{module}.py::{test.split('def ')[1].split('(')[0]}"
    line = line_of(test, "assert ")
    failure = failing_test(test_path, nodeid, line, error, [], keys, {here: branches})
    passing = [
        TestOutcome(
            f"tests/test_other.py::test_{n}", "passed", covered=keys, blocks={here: branches[1:]}
        )
        for n in range(4)
    ]
    run = RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_a_constructor_that_handed_self_on_after_its_store_comes_first(tmp_path):
    defs = ("def __init__", "def wrap(")
    found = ranked(tmp_path, "wrapper", WRAPPER, WRAPPER_TEST, WRAPPER_ERROR, defs)
    assert found[0] == "Wrapper.__init__"


def test_a_constructor_that_computed_the_attribute_in_a_branch_comes_first(tmp_path):
    defs = ("def from_config(", "def __init__")
    blocks = ("return 2", "n_jobs = 1", "self.n_jobs = n_jobs")
    found = ranked(tmp_path, "pool", POOL, POOL_TEST, POOL_ERROR, defs, blocks)
    assert found[0] == "Pool.__init__"


def test_a_value_computed_in_no_branch_is_how_the_object_began(tmp_path):
    defs = ("def from_config(", "def __init__")
    blocks = ("return 2", "self.n_jobs = n_jobs")
    found = ranked(tmp_path, "pool", UNBRANCHED, POOL_TEST, POOL_ERROR, defs, blocks)
    assert found[0] == "from_config"


def test_a_branch_of_an_object_the_test_did_not_make_is_not_lifted(tmp_path):
    test = POOL_TEST.replace("p = Pool(n_jobs=None)", "p = make(None)").replace(
        "import Pool", "import make"
    )
    text = POOL + "\n\ndef make(n_jobs):\n    return Pool(n_jobs=n_jobs)\n"
    defs = ("def from_config(", "def __init__", "def make(")
    blocks = ("return 2", "n_jobs = 1", "self.n_jobs = n_jobs")
    found = ranked(tmp_path, "pool", text, test, POOL_ERROR, defs, blocks)
    assert found[0] != "Pool.__init__"


def test_self_handed_to_a_base_constructor_is_how_the_object_began(tmp_path):
    defs = ("def __init__(self, func", "def wrap(")
    found = ranked(tmp_path, "wrapper", HANDED_TO_BASE, WRAPPER_TEST, WRAPPER_ERROR, defs)
    assert found[0] == "wrap"


def test_the_class_comes_from_the_failing_frame_s_local(tmp_path):
    here, test_path = write_project(tmp_path, "wrapper", WRAPPER, WRAPPER_TEST)
    keys = [f"{here}:{line_of(WRAPPER, n)}" for n in ("def __init__", "def wrap(")]
    line = line_of(WRAPPER_TEST, "assert ")
    nodeid = "tests/test_wrapper.py::test_context_is_not_copied"
    failure = failing_test(
        test_path, nodeid, line, ("AssertionError", "assert Ellipsis is None"), [], keys
    )
    name = "test_context_is_not_copied"
    failure.frames = [
        Frame(test_path, line, name, {"wrapped": "<wrapper.Wrapper object at 0x7f00>"})
    ]
    run = RunResult(str(tmp_path), passed=0, failed=1, failures=[failure])
    assert locate(failure, str(tmp_path), run).suspects[0].qualname == "Wrapper.__init__"
