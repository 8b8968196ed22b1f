"""Code under test that writes to a descriptor by number (argcomplete debugs to fd 9 and
closes it when it opens it again) cannot end heal-ls's report: the files the plugin keeps
open while tests run sit above 3-9 (heal_exchange.open_kept). Before, the report was fd 9,
the run's report stopped at the first such test, and `check --test` of a later test of the
file fell back to running that test alone, without the file's passing tests as contrast."""

import asyncio
import os

from heal_exchange import FIRST_UNNAMED_FD, open_kept
from heal_ls import diagnose
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from helpers.projects import write_files

# argcomplete's shape: a completer that debugs to fd 9 (the wrapper it opened before is
# closed, fd 9 with it, when it opens the next), a unittest file test/test.py of two classes
COMPLETER = {
    "complete/__init__.py": """
        import os
        import sys

        debug_stream = sys.stderr


        def complete(words, output):
            global debug_stream
            try:
                debug_stream = os.fdopen(9, "w")
            except OSError:
                debug_stream = sys.stderr
            output.write(" ".join(sorted(w for w in words if w.startswith("a"))))


        def last_word(line):
            return line.split()[-1] if line.strip() else None
        """,
    "test/__init__.py": "",
    "test/test.py": """
        import unittest
        from tempfile import TemporaryFile

        from complete import complete, last_word


        class TestComplete(unittest.TestCase):
            def run_completer(self, words):
                with TemporaryFile(mode="w+") as out:
                    complete(words, out)
                    out.seek(0)
                    return out.read()

            def test_one(self):
                self.assertEqual(self.run_completer(["ab", "b"]), "ab")

            def test_two(self):
                self.assertEqual(self.run_completer(["ac", "ab"]), "ab ac")

            def test_three(self):
                self.assertEqual(self.run_completer(["b"]), "")


        class TestLastWord(unittest.TestCase):
            def test_word(self):
                self.assertEqual(last_word("a b"), "b")

            def test_empty(self):
                self.assertEqual(last_word("  "), "")
        """,
}
OPTIONS = RunOptions(test_timeout=10, run_timeout=120)


def test_a_kept_file_opens_above_the_numbered_descriptors(tmp_path):
    with open_kept(str(tmp_path / "report.jsonl")) as kept:
        assert kept.fileno() >= FIRST_UNNAMED_FD
        assert not os.get_inheritable(kept.fileno())
        kept.write("row\n")
    assert (tmp_path / "report.jsonl").read_text() == "row\n"


def test_code_that_reopens_descriptor_9_leaves_the_report_whole(tmp_path):
    root = write_files(tmp_path, COMPLETER)
    run = asyncio.run(run_pytest(str(root), OPTIONS, nodeids=["test/test.py"]))
    assert run.complete
    assert len(run.tests) == 5
    assert [f.test for f in run.failures if f.exc_type == "AssertionError"] == [
        "test/test.py::TestLastWord::test_empty"
    ]


def test_check_of_one_test_runs_its_whole_file_past_such_code(tmp_path):
    root = write_files(tmp_path, COMPLETER)
    failing = "test/test.py::TestLastWord::test_empty"
    run, located = asyncio.run(diagnose.diagnose(str(root), OPTIONS, tests=[failing]))
    assert run.ran == 5  # the file's run reached it: not the test alone (ran 0)
    ((failure, where),) = located
    assert failure.test == failing and where.suspects[0].qualname == "last_word"
