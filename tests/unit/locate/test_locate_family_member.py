"""locate(): the object's class lacks the member the failing test reads, or shows the object
by Python's default repr, and no class of its family has that member: the family's base of ours
is where it goes, first, then the class (issue 22, class M; paramiko's `PKey.algorithm_name`
read off an `RSAKey`, rope's `ImportInfo.__repr__` checked on a `FromImport`). With a sibling
that has its own, a read stays with the defs (a def may have left it out) and a default repr
names the class alone."""

from heal_ls.locate import locate
from heal_ls.models import RunResult

from tests.helpers.locate import failing_test, write_project

KEYS = """\
class Key:
    def __init__(self, data):
        self.data = data

    def get_name(self):
        return ""


class RSAKey(Key):
    def __init__(self, data):
        super().__init__(data)
        self.size = len(data)

    def get_name(self):
        return "ssh-rsa"


class DSSKey(Key):
    def get_name(self):
        return "ssh-dss"
"""
READ = """\
from keys import DSSKey, RSAKey


def test_algorithm():
    key = RSAKey(b"k")
    names = [k.algorithm for k in (key, DSSKey(b"d"))]
    assert names == ["RSA", "DSS"]
"""
SHOWN = """\
from keys import DSSKey, RSAKey


def test_repr():
    key = RSAKey(b"k")
    assert repr(key) == "<RSAKey ssh-rsa>"
"""
DEFAULT = "<keys.RSAKey object at 0x7f00deadbeef>"


def located(tmp_path, test: str, line: int, error: tuple[str, str], text: str = KEYS, local=""):
    """The failure `error` on the test's `line`, RSAKey's and Key's constructors having run."""
    tmp_path.mkdir(exist_ok=True)
    here, test_path = write_project(tmp_path, "keys", text, test)
    lines = enumerate(text.splitlines(), 1)
    keys = [f"{here}:{n}" for n, line in lines if "def __init__" in line]
    failure = failing_test(test_path, "tests/test_keys.py::test", line, error, [], keys)
    failure.frames[-1].locals.update({"key": local} if local else {})
    return locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))


def test_a_read_member_no_class_of_the_family_has_goes_to_their_base_first(tmp_path):
    error = ("AttributeError", "'RSAKey' object has no attribute 'algorithm'")
    found = located(tmp_path, READ, 6, error)
    assert [(s.qualname, s.member) for s in found.suspects[:2]] == [
        ("Key", "algorithm"),
        ("RSAKey", "algorithm"),
    ]
    assert found.suspects[0].reason == (
        "lacks algorithm, which tests/test_keys.py:6 reads off a RSAKey, its subclass;"
        " no class of their family has it"
    )


def test_a_read_member_a_sibling_has_stays_with_the_defs(tmp_path):
    """DSSKey keeps `algorithm`: RSAKey's constructor may have left it out."""
    text = KEYS.replace('        return "ssh-dss"', '        self.algorithm = "DSS"')
    error = ("AttributeError", "'RSAKey' object has no attribute 'algorithm'")
    found = located(tmp_path, READ, 6, error, text)
    assert "Key" not in [s.qualname for s in found.suspects]
    assert "RSAKey" not in [s.qualname for s in found.suspects]


def test_a_default_repr_checked_names_the_family_base_then_the_class(tmp_path):
    message = f"assert '{DEFAULT}' == '<RSAKey ssh-rsa>'\n  - <RSAKey ssh-rsa>\n  + {DEFAULT}"
    found = located(tmp_path, SHOWN, 6, ("AssertionError", message), local=DEFAULT)
    assert [(s.qualname, s.member) for s in found.suspects[:2]] == [
        ("Key", "__repr__"),
        ("RSAKey", "__repr__"),
    ]
    assert found.healable and found.suspects[1].reason == (
        "lacks __repr__, which tests/test_keys.py:6 checks the text of a RSAKey"
    )


def test_a_default_repr_beside_a_sibling_with_its_own_names_the_class_alone(tmp_path):
    text = KEYS + '\n    def __repr__(self):\n        return "<DSSKey>"\n'
    message = f"assert '{DEFAULT}' == '<RSAKey ssh-rsa>'"
    found = located(tmp_path, SHOWN, 6, ("AssertionError", message), text, local=DEFAULT)
    assert [(s.qualname, s.member) for s in found.suspects[:1]] == [("RSAKey", "__repr__")]
    assert "Key" not in [s.qualname for s in found.suspects]


def test_a_repr_of_ours_or_text_the_check_did_not_show_names_no_class(tmp_path):
    """Key defines `__repr__` (a def of ours wrote the text), or the message does not hold
    the local's default repr (the check compared something else)."""
    text = KEYS.replace(
        "class Key:\n", "class Key:\n    def __repr__(self):\n        return ''\n\n"
    )
    message = f"assert '{DEFAULT}' == '<RSAKey ssh-rsa>'"
    own = located(tmp_path / "own", SHOWN, 6, ("AssertionError", message), text, local=DEFAULT)
    other = located(
        tmp_path / "other", SHOWN, 6, ("AssertionError", "assert 'x' == 'y'"), local=DEFAULT
    )
    for found in (own, other):
        assert not {"Key", "RSAKey"} & {s.qualname for s in found.suspects}
