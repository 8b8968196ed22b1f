"""WorkspaceState.apply_run: full runs replace, focused runs only touch the tests they ran."""

from heal_ls.lsp.workspace.state import Known, WorkspaceState
from heal_ls.models import Failure, RunResult
from heal_ls.models import TestOutcome as Outcome


def known(nodeid: str, covered=()) -> Known:
    failure = Failure(
        id=nodeid,
        exc_type="KeyError",
        message="'pear'",
        test=nodeid,
        test_path="/w/tests/test_a.py",
        covered=list(covered),
    )
    return Known(failure, None, False)


def run_with(*outcomes: Outcome) -> RunResult:
    return RunResult(root="/w", tests=list(outcomes))


def test_full_run_replaces_everything():
    state = WorkspaceState()
    state.apply_run(run_with(), {"t::a": known("t::a"), "t::b": known("t::b")}, None)
    state.apply_run(run_with(), {"t::b": known("t::b")}, None)
    assert list(state.known) == ["t::b"]


def test_focused_run_keeps_failures_it_did_not_run():
    state = WorkspaceState()
    state.apply_run(run_with(), {"t.py::a": known("t.py::a"), "u.py::b": known("u.py::b")}, None)
    generation = state.generation
    state.apply_run(run_with(Outcome("t.py::a", "passed")), {}, ["t.py::a"])
    assert list(state.known) == ["u.py::b"]
    assert state.generation == generation + 1


def test_a_file_scope_covers_its_tests():
    state = WorkspaceState()
    state.apply_run(
        run_with(), {"t.py::a": known("t.py::a"), "t.py::C::b": known("t.py::C::b")}, None
    )
    state.apply_run(run_with(), {}, ["t.py"])
    assert state.known == {}


def test_tests_touching_a_file_come_from_coverage():
    state = WorkspaceState()
    passing = Outcome("t.py::ok", "passed", path="/w/tests/t.py", covered=["/w/lib.py:3"])
    state.apply_run(run_with(passing), {"t.py::a": known("t.py::a", ["/w/other.py:1"])}, None)
    assert state.tests_touching("/w/lib.py") == ["t.py::ok"]
    assert state.tests_touching("/w/other.py") == ["t.py::a"]
    assert state.tests_touching("/w/tests/t.py") == ["t.py::ok"]
    assert state.tests_touching("/w/tests/test_a.py") == ["t.py::a"]
    assert state.failing_tests() == ["t.py::a"]


def test_a_collection_error_is_rerun_and_cleared_through_its_file():
    state = WorkspaceState()
    broken = Known(
        Failure(id="collect:tests/t.py", exc_type="SyntaxError", message="x"), None, False
    )
    assert broken.label() == "collecting tests/t.py"
    state.apply_run(run_with(), {broken.id: broken}, None)
    assert state.failing_tests() == ["tests/t.py"]
    state.apply_run(run_with(Outcome("tests/t.py::a", "passed")), {}, ["tests/t.py"])
    assert state.known == {}
