"""locate(): the failing check shows the wrong text, and a function the test ran has a string
constant in it (issue 22, ranking): it wrote that text, so of suspects as specific to the
failing tests it comes first (`'<img src="'` in `'src="#x"' not found in '<img src="..." />'`)."""

from heal_ls.locate.written import checked_text

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

HTML = """\
def parse_image(line):
    return {"src": line.split("::")[1].strip()}


def render_image(token):
    return '<img src="' + token["src"] + '" />'


def render_html(text):
    return render_image(parse_image(text))
"""
TEST = """\
import unittest

from html import render_html


class TestImage(unittest.TestCase):
    def test_harmful_src_blocked(self):
        html = render_html(".. image:: javascript:alert")
        self.assertIn('src="#harmful-link"', html)
"""
SEARCHED = "'src=\"#harmful-link\"' not found in '<img src=\"javascript:alert\" />'"


def ranked(tmp_path, message: str) -> list[str]:
    here, test_path = write_project(tmp_path, "html", HTML, TEST)
    keys = keys_of(here, HTML, ("parse_image", "render_image", "render_html"))
    nodeid = "tests/test_html.py::TestImage::test_harmful_src_blocked"
    line = line_of(TEST, "assertIn")
    failure = failing_test(test_path, nodeid, line, ("AssertionError", message), [], keys)
    return ranked_among_passing(tmp_path, failure, keys)


def test_the_function_whose_constant_is_in_the_wrong_text_comes_first_of_its_tie(tmp_path):
    suspects = ranked(tmp_path, SEARCHED)
    assert suspects.index("render_image") < suspects.index("parse_image")


def test_text_found_unwanted_was_put_there_by_whoever_made_it(tmp_path):
    """`'javascript' unexpectedly found in '<img src="javascript:alert" />'`: the renderer
    wrote the tag as meant; the value inside it came from elsewhere."""
    unwanted = "'javascript' unexpectedly found in '<img src=\"javascript:alert\" />'"
    suspects = ranked(tmp_path, unwanted)
    assert suspects.index("parse_image") < suspects.index("render_image")


def test_a_diff_shows_its_changed_lines_only():
    message = "assert 'a\nb' == 'a\nc'\n  \n    a\n  - b\n  + c\n +  where 'a' = f()"
    assert checked_text(message) == "- b\n+ c"
