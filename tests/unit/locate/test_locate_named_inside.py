"""locate(): of suspects the evidence ties at the top, the one whose body quotes a word of the
failing test's name that its own name lacks comes first (`options.get("width")` under
`test_rejects_bad_width`): the test says what it is about, and the def handling that thing is
likelier the one tested (issue 22, ranking: mistune's `Figure.parse`, reading `figwidth`, tied
with six other directive functions at the same block Ochiai and name lift)."""

import pytest
from heal_ls.locate import locate

from tests.helpers.locate import failed_run, keys_of, write_project

FIGURE = """\
def parse(options):
    return {"size": options.get("width", "")}


def render(attrs):
    return "<figure %s>" % " ".join(sorted(attrs.values()))
"""
TEST = """\
from figure import parse, render


def test_rejects_bad_width():
    assert render(parse({"width": "1;x"})) == "<figure >"
"""


def ranked(tmp_path, figure: str = FIGURE, test: str = TEST) -> list[str]:
    here, test_path = write_project(tmp_path, "figure", figure, test)
    nodeid = "tests/test_figure.py::test_rejects_bad_width"
    error = ("AssertionError", "assert '<figure 1;x>' == '<figure >'")
    covered = keys_of(here, figure, ("parse", "render"))
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, [], covered)
    located = locate(failure, str(tmp_path), run).suspects
    assert located[0].score == located[1].score  # the evidence ties them
    return [s.qualname for s in located]


def test_the_def_naming_what_the_test_is_about_comes_first_of_a_tie(tmp_path):
    assert ranked(tmp_path)[:2] == ["parse", "render"]


@pytest.mark.parametrize(
    "width",
    [
        '    """A width."""\n    width = options\n    return {"size": width.width}\n',
        '    if not options:\n        raise ValueError("no width")\n    return options\n',
    ],
)
def test_prose_or_a_name_says_nothing(tmp_path, width):
    """Without the quoted key, the line's order stands (the outer call first): a docstring or
    a message describes, and a local's or an attribute's name handles nothing by name."""
    figure = FIGURE.replace('    return {"size": options.get("width", "")}\n', width)
    assert ranked(tmp_path, figure)[:2] == ["render", "parse"]
