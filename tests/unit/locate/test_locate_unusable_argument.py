"""locate() after a crash on an argument of a kind the def could not use, in two more of
Python's words (issue 22, ranking): a method of a class called on another kind
(`bytes.decode(s)` with `s=None`: `descriptor 'decode' for 'bytes' objects doesn't apply to a
'NoneType' object`) and a call of a parameter that holds no callable (`send(...)` with
`send='send'`: `'str' object is not callable`). As with `'NoneType' object has no attribute`
(test_locate_entry_took.py), the def that crashed was handed the value: the caller that made it
comes first, or the entry the test called when it came from the test unchanged."""

from tests.helpers.locate import ranked_after_crash

REPORT = """\
class Problem:
    def __init__(self, text):
        self.text = text
        self.detail = None


def as_text(data, encoding):
    return bytes.decode(data, encoding)


def describe(problem):
    return as_text(problem.detail, "utf-8")


def not_found(send):
    return send({"status": 404})


def route(path, send):
    return not_found(send)


WORDS = ["zero", "one"]


def word(number):
    return WORDS[number]


def spell(number):
    return word(number)
"""
TEST = """\
from report import Problem, describe, route, spell


def test_describe():
    assert describe(Problem("x")) == "x"


def test_route():
    assert route("/", "send") is None


def test_spell():
    assert spell(1.0) == "one"
"""


def ranked(tmp_path, test: str, error, frames: list[tuple[str, str, dict]]) -> list[str]:
    defs = ("as_text", "describe", "not_found", "route", "word", "spell")
    return ranked_after_crash(tmp_path, "report", REPORT, TEST, test, error, frames, defs)


def test_the_caller_that_passed_a_none_a_method_of_bytes_refused_comes_first(tmp_path):
    frames = [
        ('as_text(problem.detail, "utf-8")', "describe", {"problem": "<Problem object>"}),
        ("bytes.decode(data, encoding)", "as_text", {"data": "None", "encoding": "'utf-8'"}),
    ]
    message = "descriptor 'decode' for 'bytes' objects doesn't apply to a 'NoneType' object"
    located = ranked(tmp_path, "test_describe", ("TypeError", message), frames)
    assert located[:2] == ["describe", "as_text"]


def test_the_entry_that_took_the_tests_str_it_called_below_comes_first(tmp_path):
    frames = [
        ("return not_found(send)", "route", {"path": "'/'", "send": "'send'"}),
        ('send({"status": 404})', "not_found", {"send": "'send'"}),
    ]
    error = ("TypeError", "'str' object is not callable")
    assert ranked(tmp_path, "test_route", error, frames)[:2] == ["route", "not_found"]


def test_a_callable_the_def_made_itself_keeps_the_blame(tmp_path):
    """`not_found` called what it was handed; the kind Python could not call is not the kind
    the parameter held (an int made in the def's own line), so no caller handed it."""
    frames = [
        ("return not_found(send)", "route", {"path": "'/'", "send": "'send'"}),
        ('send({"status": 404})', "not_found", {"send": "<function send>"}),
    ]
    error = ("TypeError", "'str' object is not callable")
    assert ranked(tmp_path, "test_route", error, frames)[0] == "not_found"


def test_a_literal_a_builtin_refused_keeps_the_raise_site(tmp_path):
    """`WORDS[number]` with the test's `1.0`: unlike a call of a str, indexing with a number is
    what `word` does with what it takes, and it may be `word` that should have handled a float."""
    frames = [
        ("return word(number)", "spell", {"number": "1.0"}),
        ("return WORDS[number]", "word", {"number": "1.0"}),
    ]
    error = ("TypeError", "list indices must be integers or slices, not float")
    assert ranked(tmp_path, "test_spell", error, frames)[0] == "word"
