"""locate(): the first suspect reads, in its likeliest block, state off `self` that another
def of its class computed and stored (issue 22, ranking, class A: the fault made a value and
returned; a later reader ranks first). That maker comes right after the reader, here a table
built by `setup` while the module was imported; before it when what it stored is a table
written out as literals (a hand-written entry is likelier wrong than the lookup that applies
every entry alike: num2words' German `ords`). A parameter stored as it came
(`self.suffix = suffix`) was made by the caller: its constructor is not lifted."""

import pytest

from tests.helpers.locate import failing_test, line_of, ranked_among_passing, write_project

WORDS = """\
class Words:
    def __init__(self, suffix):
        self.suffix = suffix
        self.setup()

    def setup(self):
        self.ords = {"eins": "ers", "drei": "drit"}

    def cardinal(self, value):
        return {1: "eins", 3: "drei", 4: "vier"}[value]

    def ordinal(self, value):
        word = self.cardinal(value)
        for key in self.ords:
            if word.endswith(key):
                word = word[: -len(key)] + self.ords[key] + self.suffix
        return word + "te"


CONVERTER = Words("")
"""
TEST = """\
from words import CONVERTER


def test_ordinal():
    assert CONVERTER.ordinal(3) == "dritte"
"""


def ranked(tmp_path, words: str = WORDS) -> list[str]:
    here, test_path = write_project(tmp_path, "words", words, TEST)
    key = {n: f"{here}:{line_of(words, f'def {n}(')}" for n in ("__init__", "setup")}
    key |= {n: f"{here}:{line_of(words, f'def {n}(')}" for n in ("cardinal", "ordinal")}
    branch = line_of(words, "word = word[:")
    nodeid = "tests/test_words.py::test_ordinal"
    error = ("AssertionError", "assert 'drirtte' == 'dritte'")
    ran = [key["cardinal"], key["ordinal"]]
    failure = failing_test(test_path, nodeid, 5, error, [], ran, {here: [branch]})
    failure.import_covered = [key["__init__"], key["setup"]]
    return ranked_among_passing(tmp_path, failure, ran, {here: []})


def test_the_def_that_stored_a_literal_table_the_reader_reads_comes_first(tmp_path):
    assert ranked(tmp_path)[:2] == ["Words.setup", "Words.ordinal"]


@pytest.mark.parametrize(
    "table",
    ['dict(zip(["eins", "drei"], ["ers", "drit"]))', '{"eins": "ers", "drei": SUFFIX}'],
)
def test_the_def_that_computed_what_the_reader_reads_comes_right_after_it(tmp_path, table):
    words = WORDS.replace('{"eins": "ers", "drei": "drit"}', table)
    assert ranked(tmp_path, "SUFFIX = 'drit'\n" + words)[:2] == ["Words.ordinal", "Words.setup"]


@pytest.mark.parametrize("stored", ["suffix", 'suffix or "-"'])
def test_a_parameter_stored_as_it_came_lifts_no_constructor(tmp_path, stored):
    """Without the table only `self.suffix` is read there: `__init__` kept it as handed (or
    a default in its place)."""
    words = WORDS.replace("self.ords[key]", '"x"').replace("for key in self.ords", "for key in []")
    words = words.replace("self.suffix = suffix", f"self.suffix = {stored}")
    assert "Words.__init__" not in ranked(tmp_path, words)[:2]


@pytest.mark.parametrize("start", ["{}", "dict()", "defaultdict(list)", "[]"])
def test_an_empty_start_state_lifts_no_constructor(tmp_path, start):
    """`self.ords = {}` (filled by other defs later) made nothing the reader can have been
    handed wrong: the bundled inventory example's `__init__` came second for every KeyError."""
    words = WORDS.replace('self.ords = {"eins": "ers", "drei": "drit"}', f"self.ords = {start}")
    assert "Words.setup" not in ranked(tmp_path, words)[:2]
