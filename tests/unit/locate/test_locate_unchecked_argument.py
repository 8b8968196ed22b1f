"""locate() when a test expects `NotImplementedError` and the call failed deeper with a
signature's TypeError (issue 22, ranking): the keyword the test handed the function it called
went on unchecked until a def that has no such parameter refused it. Nothing on the path raises
what the test expects; the refusal belongs where the arguments came in (the function the test
called), not in the def whose signature refused them."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, line_of, write_project

CANVAS = """\
class Engine:
    def draw(self, shape):
        return [shape]


class Backend:
    def __init__(self):
        self.engine = Engine()

    def render(self, shape, colour=None):
        options = {} if colour is None else {"colour": colour}
        return self.engine.draw(shape, **options)


class Canvas:
    def __init__(self):
        self.backend = Backend()

    def draw(self, shape, colour=None):
        return self.backend.render(shape, colour=colour)
"""
WITH_FORM = """\
import pytest
from canvas import Canvas


def test_colour_is_not_supported():
    with pytest.raises(NotImplementedError):
        Canvas().draw("box", colour="red")
"""
CALLABLE_FORM = """\
import unittest
from canvas import Canvas


class CanvasTest(unittest.TestCase):
    def test_colour_is_not_supported(self):
        self.assertRaises(NotImplementedError, Canvas().draw, "box", colour="red")
"""
PLAIN = """\
from canvas import Canvas


def test_colour_is_not_supported():
    Canvas().draw("box", colour="red")
"""


def ranked(tmp_path, test: str) -> list[str]:
    here, test_path = write_project(tmp_path, "canvas", CANVAS, test)
    defs = [line_of(CANVAS, text) for text in ("def draw(self, shape)", "def render", "def draw(")]
    covered = [f"{here}:{line}" for line in sorted(set(defs))]
    frames = [
        Frame(here, line_of(CANVAS, "return self.backend.render"), "draw"),
        Frame(here, line_of(CANVAS, "return self.engine.draw"), "render"),
    ]
    error = ("TypeError", "Engine.draw() got an unexpected keyword argument 'colour'")
    nodeid = "tests/test_canvas.py::test_colour_is_not_supported"
    line = line_of(test, "Canvas()")
    failure, run = failed_run(tmp_path, test_path, nodeid, line, error, frames, covered)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_function_the_test_called_is_where_the_expected_refusal_is_missing(tmp_path):
    assert ranked(tmp_path, WITH_FORM)[:2] == ["Canvas.draw", "Engine.draw"]


def test_assert_raises_given_the_callable_expects_the_same(tmp_path):
    assert ranked(tmp_path, CALLABLE_FORM)[0] == "Canvas.draw"


def test_without_an_expected_exception_the_refusing_signature_comes_first(tmp_path):
    assert ranked(tmp_path, PLAIN)[0] == "Engine.draw"
