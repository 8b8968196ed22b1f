"""Re-finding a suspect in a text that moved on (locate/refind.py): by qualname nearest its old
place, for the editor's heal, the CLI's later targets and a fix redone on a changed buffer."""

import pytest
from heal_ls.locate import index_source, suspect_for
from heal_ls.locate.refind import refind, respice
from heal_ls.pysource.splice import SpliceError

TWO = "class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 1\n"


def located(text: str, qualname: str, near: int | None = None):
    node = index_source(text).find(qualname, near_line=near)
    assert node is not None
    return suspect_for("/w/pkg/mod.py", node, "test", 0.5)


def test_refind_follows_the_function_when_lines_are_added_above():
    old = "import os\n\n@cache\ndef f():\n    return 1\n"
    new = "import os\nimport sys\n\n\n@cache\ndef f():\n    return 1\n"
    found = refind(located(old, "f"), new)
    assert found is not None
    assert (found.start_line, found.def_line, found.end_line) == (5, 6, 7)
    assert (found.path, found.reason, found.score) == ("/w/pkg/mod.py", "test", 0.5)


def test_refind_takes_the_one_nearest_its_old_place_of_two_same_qualnames():
    old = "if X:\n    def pick():\n        return 1\nelse:\n    def pick():\n        return 2\n"
    second = located(old, "pick", near=5)
    assert second.def_line == 5
    found = refind(second, "# moved\n" + old)
    assert found is not None and found.def_line == 6


def test_refind_gives_none_when_the_function_is_gone_and_raises_on_broken_text():
    suspect = located(TWO, "B.f")
    assert refind(suspect, TWO.replace("class B", "class C")) is None
    with pytest.raises(SyntaxError):
        refind(suspect, "def f(:\n")


def test_respice_after_lines_were_inserted_above():
    old = "import os\n\ndef f():\n    return 1\n"
    new_doc = "import os\nimport sys\n\n\ndef f():\n    return 1\n"
    after = respice(new_doc, located(old, "f"), old, "def f():\n    return 2\n")
    assert after == new_doc.replace("return 1", "return 2")


def test_respice_refuses_when_the_function_changed_or_the_text_broke():
    old = "def f():\n    return 1\n"
    with pytest.raises(SpliceError, match="the function changed since the fix was computed"):
        respice("def f():\n    return 3\n", located(old, "f"), old, "def f():\n    return 2\n")
    with pytest.raises(SpliceError, match="the document no longer parses"):
        respice("def f(:\n", located(old, "f"), old, "def f():\n    return 2\n")


def test_respice_finds_the_right_one_of_two_same_names():
    new_doc = "# header\n" + TWO
    after = respice(new_doc, located(TWO, "B.f"), TWO, "def f(self):\n    return 2\n")
    assert after == "# header\n" + TWO[: TWO.rindex("1")] + "2\n"


def test_respice_follows_a_renamed_class_by_the_functions_name():
    new_doc = TWO.replace("class B", "class Renamed")
    after = respice(new_doc, located(TWO, "B.f"), TWO, "def f(self):\n    return 2\n")
    assert after == new_doc[: new_doc.rindex("1")] + "2\n"
