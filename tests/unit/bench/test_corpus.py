"""The real-bug corpus's pure parts (no runs, no network): reading diffs, naming the functions a
fix touched, storing bugs, ranking, the table; and the shipped corpus itself is well formed.
Reading pytest's outcomes from a real run is in tests/e2e/test_bench_real.py."""

import json
import os
import re
from dataclasses import replace

import pytest
from heal_ls import payload
from heal_ls.bench import corpus, real
from heal_ls.bench.patches import changed_names, merged_patch, split_files, touched_functions
from helpers.corpus import SOURCE_PATCH, added_test_patch, build_corpus

OLD = """\
import os


class Box:
    def put(self, item):
        self.items.append(item)

    def take(self):
        def pick(items):
            return items[0]

        return pick(self.items)


LIMIT = 3
"""


def test_two_file_diffs_are_split_by_file():
    parts = split_files(SOURCE_PATCH + added_test_patch("x", 1))
    assert [path for path, _ in parts] == ["src/tiny/calc.py", "tests/test_calc.py"]
    assert parts[0][1] == SOURCE_PATCH


def test_changed_names_are_the_innermost_defs_and_classes_of_old_lines_replaced_or_deleted():
    new = OLD.replace("return items[0]", "return items[-1]").replace("LIMIT = 3\n", "")
    assert changed_names(OLD, new) == ["Box.take.<locals>.pick", "<module>"]
    inserted = OLD.replace("    def take(self):\n", "    def take(self):\n        check()\n")
    assert changed_names(OLD, inserted) == ["Box.take"]
    assert changed_names(OLD, OLD.replace("class Box:", "class Box(list):")) == ["Box"]


def test_a_new_member_is_a_change_to_its_class_not_to_the_def_above():
    # the test calls box.count(), which the buggy Box lacks: the fix adds it to the class
    count = "    def count(self):\n        return len(self.items)\n\n"
    added = OLD.replace("    def take(self):\n", count + "    def take(self):\n")
    assert changed_names(OLD, added) == ["Box"]
    also = added.replace("append", "insert")  # and a method of it changed: both
    assert changed_names(OLD, also) == ["Box.put", "Box"]
    nested = OLD.replace(
        "        return pick",
        "        def last(items):\n            return 1\n\n        return pick",
    )
    assert changed_names(OLD, nested) == ["Box.take"]
    top = OLD.replace("LIMIT = 3\n", "LIMIT = 3\n\n\ndef helper():\n    return LIMIT\n")
    assert changed_names(OLD, top) == ["<module>"]
    # a def split in two (its body kept under a new name, a new def of the old name calling
    # it): the lines put in whose holder is new too belong with the line above
    split = OLD.replace(
        "    def put(self, item):\n        self.items.append(item)\n",
        "    def _add(self, item):\n        self.items.append(item)\n        return item\n\n"
        "    def put(self, item, at=None):\n        self._add(item)\n",
    )
    assert changed_names(OLD, split) == ["Box.put", "Box"]


def test_a_change_whose_context_moved_on_is_carried_over_by_a_3_way_merge(tmp_path):
    # the fix (base -> theirs) changes `put` and `pick`, one hunk; the release (ours) changed a
    # line between them, so the fix's own diff does not apply to the release's file
    base = OLD.encode()
    theirs = OLD.replace("items[0]", "items[-1]").replace("append", "insert").encode()
    ours = OLD.replace("def take(self):", "def take(self):  # first").encode()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/box.py").write_bytes(ours)
    plain = merged_patch("pkg/box.py", base, base, theirs)
    assert plain is not None and plain.count("\n@@") == 1
    with pytest.raises(corpus.CorpusError, match="does not apply"):
        corpus.apply_patch(tmp_path, plain, "test.patch", check=True)
    patch = merged_patch("pkg/box.py", ours, base, theirs)
    assert patch is not None and split_files(patch)[0][0] == "pkg/box.py"
    corpus.apply_patch(tmp_path, patch, "test.patch")
    fixed = ours.replace(b"items[0]", b"items[-1]").replace(b"append", b"insert")
    assert (tmp_path / "pkg/box.py").read_bytes() == fixed


def test_a_patch_applies_to_a_tree_with_crlf_lines(tmp_path):
    # an sdist built on Windows: the commit's LF diff still applies
    (tmp_path / "box.py").write_bytes(OLD.replace("\n", "\r\n").encode())
    patch = merged_patch("box.py", OLD.encode(), OLD.encode(), OLD.replace("[0]", "[1]").encode())
    assert patch is not None
    corpus.apply_patch(tmp_path, patch, "test.patch")
    assert b"return items[1]" in (tmp_path / "box.py").read_bytes()
    with pytest.raises(corpus.CorpusError, match="test.patch does not apply"):
        corpus.apply_patch(tmp_path, patch.replace("items[0]", "items[2]"), "test.patch")
    crlf = OLD.replace("\n", "\r\n").encode()
    (tmp_path / "box.py").write_bytes(crlf)
    merged = merged_patch("box.py", crlf, OLD.encode(), OLD.replace("append", "insert").encode())
    assert merged is not None  # the CRLF file merged as LF, not one conflict of every line
    corpus.apply_patch(tmp_path, merged, "test.patch")
    assert (tmp_path / "box.py").read_bytes() == crlf.replace(b"append(item)\r", b"insert(item)")


def test_a_3_way_merge_that_conflicts_or_changes_nothing_gives_no_patch():
    base, theirs = OLD.encode(), OLD.replace("items[0]", "items[-1]").encode()
    other = OLD.replace("items[0]", "items[1]").encode()  # the same line, changed otherwise
    assert merged_patch("box.py", other, base, theirs) is None
    assert merged_patch("box.py", theirs, base, theirs) == ""  # the release has the change


def test_touched_functions_are_the_innermost_defs_and_module_level(tmp_path):
    buggy, fixed = tmp_path / "buggy", tmp_path / "fixed"
    for root in (buggy, fixed):
        (root / "pkg").mkdir(parents=True)
    (buggy / "pkg/box.py").write_text(OLD)
    new = OLD.replace("items[0]", "items[-1]").replace("append", "insert").replace("3", "4")
    (fixed / "pkg/box.py").write_text(new)
    diff = "diff --git a/pkg/box.py b/pkg/box.py\n--- a/pkg/box.py\n+++ b/pkg/box.py\n"
    assert touched_functions(buggy, fixed, diff) == [
        "pkg/box.py::Box.put",
        "pkg/box.py::Box.take.<locals>.pick",
        "pkg/box.py::<module>",
    ]


def test_bugs_round_trip_and_bad_names_are_refused(tmp_path):
    folder, _ = build_corpus(tmp_path)
    shelf = folder / "bugs"
    bugs = corpus.load_bugs(shelf)
    assert [b.id for b in bugs] == ["tiny-bad", "tiny-good"]
    assert corpus.load_bugs(shelf, only=["tiny"]) == bugs  # a project name selects its bugs
    assert [b.round for b in bugs] == [2, 1]  # bug.json's round, read into the bug
    assert corpus.load_bugs(shelf, rounds=[2]) == bugs[:1]
    assert corpus.load_bugs(shelf, only=["tiny-good"], rounds=[1, 2]) == bugs[1:]
    assert corpus.load_bugs(shelf, only=["tiny-good"], rounds=[2]) == []
    with pytest.raises(corpus.CorpusError, match="no bug of round.s. 3"):
        corpus.load_bugs(shelf, rounds=[3])
    good = bugs[1]
    assert good.functions == ("src/tiny/calc.py::is_adult",)
    assert good.source_patch == SOURCE_PATCH
    corpus.save_bug(good, tmp_path / "copy")
    assert corpus.load_bugs(tmp_path / "copy") == [good]
    with pytest.raises(corpus.CorpusError, match="no such bug"):
        corpus.load_bugs(shelf, only=["tiny-ugly"])
    (shelf / "tiny-bad/source.patch").unlink()
    with pytest.raises(corpus.CorpusError, match="malformed bug"):
        corpus.load_bugs(shelf)
    assert corpus.load_projects(folder)["tiny"] == corpus.Project("tiny", "src", (), ())


@pytest.mark.parametrize(
    ("projects", "error"),
    [
        ("{", r"projects.json: not readable JSON \(Expecting"),
        ("[]", r"projects.json: malformed: dict: expected an object, got an array"),
        ('{"tiny": []}', r"projects.json\['tiny'\]: malformed: Project: expected an object"),
        ('{"tiny": {"deps": "pytest"}}',
         r"projects.json\['tiny'\]: malformed: Project.deps: expected an array, got a string"),
        ('{"tiny": {"pytest_args": ["-q", 3]}}',
         r"projects.json\['tiny'\]: malformed: Project.pytest_args\[1\]: expected str, got a"),
    ],
)  # fmt: skip
def test_a_malformed_projects_json_is_an_error_naming_the_file_and_the_field(
    tmp_path, projects, error
):
    folder, _ = build_corpus(tmp_path)
    (folder / "projects.json").write_text(projects)
    with pytest.raises(corpus.CorpusError, match=error) as refused:
        corpus.load_projects(folder)
    assert str(refused.value).startswith(str(folder / "projects.json"))


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"version": None}, "Bug.version: expected str, got null"),
        ({"failing_tests": "tests/test_calc.py::test_x"},
         "Bug.failing_tests: expected an array, got a string"),
        ({"functions": [["src/tiny/calc.py", "is_adult"]]},
         "Bug.functions[0]: expected str, got an array"),
    ],
)  # fmt: skip
def test_a_malformed_bug_json_is_an_error_naming_the_file_and_the_field(tmp_path, change, error):
    folder, _ = build_corpus(tmp_path)
    path = folder / "bugs/tiny-good/bug.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    with pytest.raises(corpus.CorpusError) as refused:
        corpus.load_bugs(folder / "bugs")
    assert str(refused.value) == f"{path}: malformed: {error}"


def test_a_bug_json_missing_a_field_or_not_json_is_an_error_naming_the_file(tmp_path):
    folder, _ = build_corpus(tmp_path)
    path = folder / "bugs/tiny-good/bug.json"
    data = json.loads(path.read_text())
    del data["url"]
    path.write_text(json.dumps(data))
    with pytest.raises(corpus.CorpusError) as refused:
        corpus.load_bugs(folder / "bugs")
    assert str(refused.value) == f"{path}: malformed: Bug: field 'url' is missing"
    path.write_text("")
    with pytest.raises(corpus.CorpusError, match="tiny-good/bug.json: not readable JSON"):
        corpus.load_bugs(folder / "bugs")


def test_rank_is_the_fixed_function_or_the_def_enclosing_it():
    suspects = [("m.py", "helper"), ("m.py", "outer")]
    assert real.rank(suspects, ["m.py::outer.<locals>.inner"]) == 2
    assert real.rank(suspects, ["m.py::helper", "m.py::outer"]) == 1
    assert real.rank(suspects, ["other.py::helper"]) is None
    assert real.rank(suspects, ["m.py::outer_two"]) is None


def _row(bug, round_=1, **values):
    bug_ = corpus.Bug(bug, "p", "1", "0", "c", "u", ("t",), ("m.py::f",), round_, "", "")
    row = real.empty_row(bug_)
    return replace(row, reproduces=True, check_ran=True, **values)


def test_the_table_has_a_line_per_bug_and_honest_totals():
    rows = [
        _row("a", rank=1, listed=True, pytest_seconds=1.0, file_seconds=1.2, check_seconds=1.5,
             fix="verified", verified=True),
        _row("b", rank=3, listed=True, pytest_seconds=1.0, file_seconds=1.0, check_seconds=1.1,
             fix="verified", verified=True, breaks=["t::x"]),
        _row("c", pytest_seconds=2.0, file_seconds=2.8, check_seconds=2.4, fix="failed"),
        replace(real.empty_row(corpus.Bug("d", "q", "1", "0", "c", "u", (), (), 1, "", "")),
                note="does not reproduce"),
    ]  # fmt: skip
    lines = real.table(rows)
    cells = lambda line: [c.strip() for c in line.strip("|").split("|")]  # noqa: E731
    assert cells(lines[2])[1:] == ["yes", "1", "yes", "yes", "yes", "1.0", "1.2", "1.5", "1.50x",
                                   "1.25x", "verified", "0"]  # fmt: skip
    assert cells(lines[3])[2:6] == ["3", "no", "yes", "yes"] and cells(lines[3])[-1] == "1"
    assert cells(lines[4])[2:6] == ["-", "no", "no", "no"]
    assert "does not reproduce" in lines[5]
    total = cells(lines[-1])
    assert total[0] == "**all 3 of 4 bugs, 2 projects**"
    assert total[1:] == ["3/3", "", "1/3", "2/3", "2/3", "4.0", "5.0", "5.0", "1.25x", "1.0x",
                         "2/3 verified", "1"]  # fmt: skip


def test_the_table_has_totals_per_mining_round_before_those_of_all():
    rows = [
        _row("a", rank=1, listed=True, pytest_seconds=1.0, file_seconds=2.0, check_seconds=2.0),
        _row("b", 3, rank=4, listed=True, pytest_seconds=1.0, file_seconds=1.0, check_seconds=1.5),
        _row("c", 3, rank=2, listed=True, pytest_seconds=1.0, file_seconds=1.0, check_seconds=0.5),
    ]
    cells = lambda line: [c.strip() for c in line.strip("|").split("|")]  # noqa: E731
    *_, one, three, every = real.table(rows)
    assert cells(one)[:6] == [
        "**round 1: 1 of 1 bugs, 1 projects**",
        "1/1",
        "",
        "1/1",
        "1/1",
        "1/1",
    ]
    assert cells(one)[9:11] == ["2.0x", "1.0x"]
    assert cells(three)[:6] == [
        "**round 3: 2 of 2 bugs, 1 projects**",
        "2/2",
        "",
        "0/2",
        "1/2",
        "2/2",
    ]
    assert cells(three)[9:11] == ["1.0x", "1.0x"]
    assert cells(every)[:6] == ["**all 3 of 3 bugs, 1 projects**", "3/3", "", "1/3", "2/3", "3/3"]
    assert not any("round" in line for line in real.table(rows[1:]))  # one round: no repeat


def test_the_shipped_corpus_is_well_formed():
    projects = corpus.load_projects()
    bugs = corpus.load_bugs()
    assert bugs, "benchmarks/corpus/bugs/ is empty"
    entries = json.loads((corpus.CORPUS / "projects.json").read_text())
    for name, entry in entries.items():  # every key read, none ignored
        assert {key: payload.to_object(projects[name])[key] for key in entry} == entry, name
    for bug in bugs:
        assert payload.to_object(bug) == json.loads(
            (corpus.BUGS / bug.id / "bug.json").read_text()
        ), bug.id
        assert bug.project in projects, bug.id
        assert re.fullmatch(r"[0-9a-f]{64}", bug.sha256), bug.id
        assert re.fullmatch(r"[0-9a-f]{40}", bug.commit) and bug.commit in bug.url, bug.id
        assert bug.id == f"{bug.project}-{bug.commit[:8]}"
        assert bug.failing_tests and bug.functions, bug.id
        assert bug.round >= 1, bug.id
        # a change to a module alone has nothing to rank; beside one (a top-level def the fix
        # adds, as markdown-2e0962ef's slugify_unicode), the module is a suspect like any other
        assert not all(f.endswith("::<module>") for f in bug.functions), bug.id
        sources = [p for p, _ in split_files(bug.source_patch)]
        tests = [p for p, _ in split_files(bug.test_patch)]
        assert sources and tests and not set(sources) & set(tests), bug.id
        assert {t.split("::")[0] for t in bug.failing_tests} <= set(tests), bug.id


def test_regression_files_are_the_commits_tests_and_those_naming_a_fixed_function(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_calc.py").write_text("")  # the commit's test file
    (tmp_path / "tests/test_uses.py").write_text("from tiny.calc import is_adult\n")
    (tmp_path / "tests/test_other.py").write_text("def test_is_adultish(): pass\n")
    bug = corpus.Bug("b", "tiny", "1", "0", "c", "u", ("t",), ("src/tiny/calc.py::is_adult",), 1,
                     SOURCE_PATCH, added_test_patch("x", 1))  # fmt: skip
    assert real.regression_files(bug, tmp_path) == ["tests/test_calc.py", "tests/test_uses.py"]


def test_a_tree_keeps_the_sdists_links_as_links_even_a_broken_one(tmp_path, monkeypatch):
    # wtforms 3.1.0's sdist ships `.hgignore -> .dotfiles/mercurial/.hgignore`, which it lacks
    pristine = tmp_path / "sdist"
    (pristine / "pkg").mkdir(parents=True)
    (pristine / "pkg" / "box.py").write_text(OLD)
    (pristine / ".hgignore").symlink_to(".dotfiles/mercurial/.hgignore")
    (pristine / "box_link.py").symlink_to("pkg/box.py")
    monkeypatch.setattr(corpus, "fetch_sdist", lambda *args: pristine)
    patch = merged_patch(
        "pkg/box.py", OLD.encode(), OLD.encode(), OLD.replace("[0]", "[1]").encode()
    )
    bug = corpus.Bug("p-1", "p", "1.0", "0" * 64, "c", "u", (), (), 1, "", patch or "")
    built = corpus.tree(bug, tmp_path / "tree")
    assert os.readlink(built / ".hgignore") == ".dotfiles/mercurial/.hgignore"
    assert os.readlink(built / "box_link.py") == "pkg/box.py"  # into the copy, not the cache
    assert (built / "box_link.py").read_text() == OLD.replace("[0]", "[1]")
    assert (pristine / "pkg" / "box.py").read_text() == OLD  # the cached sdist untouched


def test_the_suite_size_is_read_with_and_without_deselected_tests():
    # poetry-core's options deselect 9 of its tests: pytest prints "selected/total"
    assert corpus.collected_count("a.py::t\n\n12 tests collected in 0.10s\n") == 12
    assert corpus.collected_count("1 test collected in 0.01s\n") == 1
    assert corpus.collected_count("2344/2353 tests collected (9 deselected) in 1.20s\n") == 2344
    assert corpus.collected_count("no tests ran in 0.01s\n") is None
