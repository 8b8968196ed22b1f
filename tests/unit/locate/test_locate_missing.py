"""locate on `cannot import name`: the workspace module lacking the name is the suspect, without
a heal action; a circular import or a module outside the workspace is not such a case."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame


def import_failure(root, message):
    frame = Frame(str(root / "tests" / "test_m.py"), 3, "<module>")
    return Failure(
        id="collect:tests/test_m.py", exc_type="ImportError", message=message, frames=[frame]
    )


def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("def f():\n    return 1\n\n\nX = 2\n")
    (tmp_path / "tests" / "test_m.py").write_text("import os\n\nfrom pkg.m import g\n")
    return tmp_path


def test_the_module_lacking_the_name_is_the_suspect(tmp_path):
    root = project(tmp_path)
    path = root / "pkg" / "m.py"
    found = locate(import_failure(root, f"cannot import name 'g' from 'pkg.m' ({path})"), str(root))
    [suspect] = found.suspects
    assert (suspect.path, suspect.qualname, suspect.start_line, suspect.end_line) == (
        str(path),
        "<module>",
        1,
        5,
    )
    assert (suspect.focus_line, suspect.end_col) == (1, 5)
    assert suspect.reason == "lacks the name g that tests/test_m.py:3 imports"
    assert not found.healable
    assert found.reason.startswith(
        "tests/test_m.py:3 imports g from pkg.m, which pkg/m.py does not"
    )


def test_an_unsaved_text_gives_the_module_its_extent(tmp_path):
    root = project(tmp_path)
    path = str(root / "pkg" / "m.py")
    failure = import_failure(root, f"cannot import name 'g' from 'pkg.m' ({path})")
    [suspect] = locate(failure, str(root), overlay={path: "A = 1\n"}).suspects
    assert (suspect.end_line, suspect.end_col) == (1, 5)


def test_a_circular_import_or_a_foreign_module_is_left_to_the_usual_reasons(tmp_path):
    root = project(tmp_path)
    path = root / "pkg" / "m.py"
    circular = (
        f"cannot import name 'g' from partially initialized module 'pkg.m' "
        f"(most likely due to a circular import) ({path})"
    )
    foreign = "cannot import name 'nope' from 'os' (/usr/lib/python3/os.py)"
    for message in (circular, foreign):
        found = locate(import_failure(root, message), str(root))
        assert found.suspects == [] and not found.healable
        assert found.reason == "raised at module level at tests/test_m.py:3, not inside a function"


def test_a_dependency_missing_from_the_test_interpreter_says_where_to_point_heal_ls(tmp_path):
    root = project(tmp_path)
    failure = import_failure(root, "No module named 'yaml'")
    failure.exc_type = "ModuleNotFoundError"
    found = locate(failure, str(root))
    assert not found.healable and found.reason.endswith(
        "yaml is not installed in the interpreter that ran the tests: if your project has its own"
        " environment, point heal-ls at its Python (--python PATH; in the editor heal.python)"
    )


def test_a_workspace_module_not_found_is_no_missing_dependency(tmp_path):
    root = project(tmp_path)
    failure = import_failure(root, "No module named 'pkg.gone'")  # pkg is the workspace's
    failure.exc_type = "ModuleNotFoundError"
    assert "not installed" not in locate(failure, str(root)).reason
