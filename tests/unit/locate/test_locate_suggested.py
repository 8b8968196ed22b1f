"""locate on `module 'pkg.m' has no attribute 'x'` raised in a test: the def Python's traceback
would suggest ("Did you mean"), renamed or misspelt, never ran, so no recording lists it; it is
listed by that suggestion (the nearest module-level def, fewest edits), and only when a def is
near (a nearer class, or nothing within a third of the name, adds no suspect)."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame

MODULE = (
    "def format_comment(text):\n    return text\n\n\n"
    "def format_code(text):\n    return text.strip()\n\n\n"
    "class Formatter:\n    pass\n"
)


def attribute_failure(root, name):
    frame = Frame(str(root / "tests" / "test_m.py"), 5, "test_format")
    message = f"module 'pkg.m' has no attribute '{name}'"
    return Failure(
        id="tests/test_m.py::test_format",
        exc_type="AttributeError",
        message=message,
        frames=[frame],
    )


def project(tmp_path, layout=""):
    package = tmp_path / layout / "pkg"
    package.mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (package / "__init__.py").write_text("")
    (package / "m.py").write_text(MODULE)
    test = "from pkg import m\n\n\ndef test_format():\n    assert m.format_comments('#') == '#'\n"
    (tmp_path / "tests" / "test_m.py").write_text(test)
    return tmp_path


def test_the_def_python_would_suggest_is_listed(tmp_path):
    root = project(tmp_path)
    found = locate(attribute_failure(root, "format_comments"), str(root))
    assert [(s.path, s.qualname) for s in found.suspects] == [
        (str(root / "pkg" / "m.py"), "format_comment")
    ]
    assert found.suspects[0].reason == (
        "its module lacks the format_comments the test asks for: Python suggests format_comment"
    )
    assert found.healable


def test_a_src_layout_module_is_found_too(tmp_path):
    root = project(tmp_path, "src")
    found = locate(attribute_failure(root, "format_cod"), str(root))
    assert [s.qualname for s in found.suspects] == ["format_code"]


def test_a_nearer_class_or_nothing_near_lists_no_def(tmp_path):
    root = project(tmp_path)
    for name in ("Formater", "parse_everything"):
        assert locate(attribute_failure(root, name), str(root)).suspects == []
