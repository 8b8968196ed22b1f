"""locate(): the failing check shows text changed, and one def alone wrote a word of the change
(issue 22, class E): `mfenced` where `<mrow><mo>(` was expected, a constant only
`parenthesize`'s branch holds among the blocks the failing test ran. It made the wrong text, so
it comes before suspects a name shared with the test lifted over it (`print_factorial`)."""

from heal_ls.locate.written import changed_words

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

PRINTER = """\
def element(tag, inner):
    return "<" + tag + ">" + inner + "</" + tag + ">"


def to_mathml(expr):
    if isinstance(expr, str):
        return element("mi", expr)
    printer = {"factorial": print_factorial, "sum": print_sum}[expr[0]]
    return printer(*[to_mathml(arg) for arg in expr[1:]])


def print_sum(left, right):
    return element("mrow", left + element("mo", "+") + right)


def print_factorial(arg):
    return element("mrow", parenthesize(arg) + element("mo", "!"))


def parenthesize(inner):
    if "<mo>" in inner:
        return element("mfenced", inner)
    return inner
"""
TEST = """\
from printer import to_mathml


def test_print_factorial():
    assert to_mathml(("factorial", ("sum", "x", "1"))) == (
        "<mrow><mrow><mo>(</mo><mrow><mi>x</mi><mo>+</mo><mi>1</mi></mrow><mo>)</mo></mrow>"
        "<mo>!</mo></mrow>"
    )
"""
# pytest's message: the expected side's changed columns are `mrow><mo>(</mo` and `<mo>)</mo>`
# (words `mrow`, held by two defs), the got side's `mfenced`
DIFF = """\
assert '<mrow><mfenc...!</mo></mrow>' == '<mrow><mrow>...!</mo></mrow>'

  - <mrow><mrow><mo>(</mo><mrow><mi>x</mi><mo>+</mo><mi>1</mi></mrow><mo>)</mo></mrow><mo>!</mo></mrow>
  ?         ^^^^^^^^^^^^^                                             -----  ^^^^^^^^
  + <mrow><mfenced><mrow><mi>x</mi><mo>+</mo><mi>1</mi></mrow></mfenced><mo>!</mo></mrow>
  ?         ^^^^^^                                               ^^^^^^"""


def ranked(tmp_path, sum_tag: str = "mrow") -> list[str]:
    """The ranking when passing tests ran every def but `print_factorial` and the branch of
    `parenthesize`; `print_sum` writes its terms in a `sum_tag` element."""
    text = PRINTER.replace('element("mrow", left', f'element("{sum_tag}", left')
    here, test_path = write_project(tmp_path, "printer", text, TEST)
    names = ("element", "to_mathml", "print_sum", "print_factorial", "parenthesize")
    keys = keys_of(here, text, names)
    branch = {here: [line_of(text, 'return element("mfenced", inner)')]}
    nodeid = "tests/test_printer.py::test_print_factorial"
    line = line_of(TEST, "assert ")
    failure = failing_test(test_path, nodeid, line, ("AssertionError", DIFF), [], keys, branch)
    shared = [k for k, name in zip(keys, names, strict=True) if name != "print_factorial"]
    return ranked_among_passing(tmp_path, failure, shared, blocks={here: []})


def test_the_def_that_alone_wrote_the_changed_word_comes_first(tmp_path):
    suspects = ranked(tmp_path)
    assert suspects.index("parenthesize") < suspects.index("print_factorial")


def test_a_changed_word_two_defs_wrote_names_neither(tmp_path):
    """`print_sum` writes `mfenced` too, and the failing test ran it: the word names no
    writer (and `mrow`, now `print_factorial`'s alone, names the one already first)."""
    suspects = ranked(tmp_path, sum_tag="mfenced")
    assert suspects.index("print_factorial") < suspects.index("parenthesize")


def test_the_changed_words_are_those_the_differing_columns_touch():
    assert changed_words(DIFF) == {"mfenced", "mrow"}


def test_a_dropped_character_changes_the_word_beside_it():
    """unittest's dict diff, a blank line after the `?` guide: only `Bearer,` changed."""
    message = (
        "{'WWW-Authenticate': 'Bearer, error=\"x\"'} != {'WWW-Authenticate': 'Bearer error=\"x\"'}"
        "\n- {'WWW-Authenticate': 'Bearer, error=\"x\"'}\n?                             -\n\n"
        "+ {'WWW-Authenticate': 'Bearer error=\"x\"'}"
    )
    assert changed_words(message) == {"Bearer"}


def test_every_element_assert_not_shows_is_changed():
    message = "assert not [('PR06', 'Parameter \"c\" type should use \"str\"'), ('PR06', 'x')]"
    assert changed_words(message) == {"PR06"}


def test_lines_only_added_change_no_word():
    # the writer of a whole extra element wrote it as told: what chose to write it is the
    # suspect, not the writer of its text (fonttools' `<Map glyph=...>` under a table that
    # should have stayed empty)
    message = (
        "assert '<?xml versio...dvWidthMap>\\n' == '<?xml versio...</VarStore>\\n'\n"
        "  \n  Skipping 385 identical leading characters in diff, use -v to show\n"
        '    /VarStore>\n  + <AdvWidthMap>\n  +   <Map glyph="A" outer="0" inner="0"/>\n'
        "  + </AdvWidthMap>"
    )
    assert changed_words(message) == set()
