"""locate(): the failing line's own code names the def without spelling it (issue 22, ranking,
class S). An operator calls a dunder of its operand's class (`(cmd & TEE(retcode=None))[0] ==
1` runs `_TEE.__rand__`, plumbum-8bac666b), resolved on the class the evidence gives the
operand, never on every def of that name; and a def only an earlier check of the test called,
which passed, does not pass the failing line's own call on the spectrum (`assert client.sid ==
'sid'` before the failing `assert client.transport == 'websocket'`, python-socketio-23556fb3)."""

from heal_ls.locate import locate
from heal_ls.locate.index import index_source
from heal_ls.locate.operators import ClassTable, operator_calls, repr_classes
from heal_ls.models import RunResult, TestOutcome

from tests.helpers.locate import failing_test, line_of, write_project

MODIFIERS = """\
class Modifier:
    def __call__(self, **options):
        return type(self)()


class _Background(Modifier):
    def __rand__(self, cmd):
        return cmd.start()


class _Tee(Modifier):
    def __rand__(self, cmd):
        return cmd.run(), cmd.out


class Command:
    def __init__(self, argv):
        self.argv = argv
        self.out = ""

    def __repr__(self):
        return f"Command({self.argv!r})"

    def run(self):
        return 0

    def start(self):
        return self


BG = _Background()
TEE = _Tee()
"""
MODIFIERS_TEST = """\
from modifiers import BG, TEE, Command


def test_tee():
    cmd = Command(["false"])
    assert (cmd & TEE(retcode=None))[0] == 1
"""

CLIENT = """\
class Client:
    def __init__(self, inner):
        self.inner = inner

    @property
    def sid(self):
        return self.inner.get_sid() if self.inner else None

    @property
    def transport(self):
        return self.inner.transport if self.inner else ""
"""
CLIENT_TEST = """\
from client import Client


def test_properties(inner):
    client = Client(inner)
    assert client.sid == "sid"
    assert client.transport == "websocket"
"""


def run_of(tmp_path, failure, passing_covered: list[str]) -> RunResult:
    passing = [
        TestOutcome(f"tests/test_other.py::test_{n}", "passed", covered=passing_covered)
        for n in range(4)
    ]
    return RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)


def test_the_operator_runs_the_dunder_of_the_operands_class(tmp_path):
    here, test_path = write_project(tmp_path, "modifiers", MODIFIERS, MODIFIERS_TEST)
    defs = ("def __call__(", "class _Background", "class _Tee", "def __init__(", "def run(")
    keys = [f"{here}:{line_of(MODIFIERS, d) + (1 if d.startswith('class') else 0)}" for d in defs]
    error = ("AssertionError", "assert 0 == 1")
    failure = failing_test(
        test_path,
        "tests/test_modifiers.py::test_tee",
        line_of(MODIFIERS_TEST, "assert ("),
        error,
        [],
        keys,
    )
    failure.frames[0].locals = {"cmd": "Command(['false'])"}
    suspects = locate(failure, str(tmp_path), run_of(tmp_path, failure, [])).suspects
    reasons = {s.qualname: s.reason for s in suspects}
    assert suspects[0].qualname == "_Tee.__rand__"
    assert reasons["_Tee.__rand__"].startswith("called on the failing line")
    assert not reasons["_Background.__rand__"].startswith("called on the failing line")


def test_a_def_only_an_earlier_passing_check_read_does_not_pass_the_failing_lines_call(tmp_path):
    here, test_path = write_project(tmp_path, "client", CLIENT, CLIENT_TEST)
    sid, transport = (f"{here}:{line_of(CLIENT, d) - 1}" for d in ("def sid(", "def transport("))
    init = f"{here}:{line_of(CLIENT, 'def __init__(')}"
    error = ("AssertionError", "assert <function <lambda>> == 'websocket'")
    line = line_of(CLIENT_TEST, "client.transport")
    failure = failing_test(
        test_path, "tests/test_client.py::test_properties", line, error, [], [init, sid, transport]
    )
    suspects = locate(failure, str(tmp_path), run_of(tmp_path, failure, [init, transport])).suspects
    assert [s.qualname for s in suspects[:2]] == ["Client.transport", "Client.sid"]
    assert "only an earlier check of the test called it" in suspects[1].reason


def test_operands_class_from_its_local_a_module_level_instance_or_the_explanation():
    import ast

    table = ClassTable([index_source(MODIFIERS)])
    line = ast.parse("assert (cmd & TEE(retcode=None))[0] == 1 and -x == y")
    found = {(c.dunder, ast.unparse(c.operand)) for c in operator_calls([line])}
    assert ("__and__", "cmd") in found and ("__rand__", "TEE(retcode=None)") in found
    assert ("__neg__", "x") in found and ("__eq__", "-x") in found
    calls = {ast.unparse(c.operand): c for c in operator_calls([line])}
    locals_ = {"cmd": "Command(['false'])"}
    assert table.classes_of(calls["cmd"].operand, locals_, []) == {"Command"}
    assert table.classes_of(calls["TEE(retcode=None)"].operand, locals_, []) == {"_Tee", "Modifier"}
    assert repr_classes("assert (<Unit('meter')> == 'm') is True") == ["Unit"]
    assert repr_classes("<pkg.mod.Client object at 0x7f>") == ["Client"]


NESTED = """\
class Base(Exception):
    pass


class Outer(Base):
    class Inner(Base):
        pass


def make():
    class Local(Outer.Inner):
        pass

    return Local


try:
    import missing
except ImportError:

    class Fallback(Base):
        pass
"""


def test_the_class_table_reads_the_classes_the_index_holds_without_walking_modules(monkeypatch):
    """Every class of the module, however nested (a class, a def, an except clause), is in its
    index, so the table walks no module (an ast.walk of each module the failing test ran took
    20-70 ms of a check)."""
    import ast

    index = index_source(NESTED)
    walked = [n.name for n in ast.walk(index.tree) if isinstance(n, ast.ClassDef)]
    assert sorted(c.name for c in index.class_defs) == sorted(walked)

    def no_walk(node):
        raise AssertionError("the class table walked a module")

    monkeypatch.setattr(ast, "walk", no_walk)
    table = ClassTable([index])
    assert table.lineage(["Local"]) == {"Local", "Inner", "Base"}
    assert table.lineage(["Fallback"]) == {"Fallback", "Base"}
