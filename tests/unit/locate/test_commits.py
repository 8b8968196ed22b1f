"""locate/commits.py outside git: a file in no repository has no history (None), so the hover
shows no commits section; the LSP test (tests/lsp/test_hover.py) covers a real repository."""

from heal_ls.locate.commits import function_commits
from heal_ls.lsp.failures.hover_text import hover_markdown
from heal_ls.models import Failure, Frame, Suspect


def test_a_file_outside_any_repository_has_no_commits_section(tmp_path):
    module = tmp_path / "mod.py"
    module.write_text("def f(x):\n    return 1 / x\n")
    assert function_commits(str(module), "f") is None
    frame = Frame(str(module), 2, "f", {"x": "0"})
    failure = Failure("t.py::test_f", "ZeroDivisionError", "division by zero", [frame])
    suspect = Suspect(str(module), "f", 1, 0, 2, 16, "raised here", def_line=1)
    text = hover_markdown(failure, suspect, str(tmp_path), None, "test_f")
    assert "`x = 0`" in text and "`mod.py:2` ← suspect" in text
    assert "commits" not in text
