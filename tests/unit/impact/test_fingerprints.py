"""Function fingerprints from compiled code: what a function does counts, where it is does not."""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from heal_ls.impact import fingerprints
from heal_ls.impact.fingerprints import file_functions

MOD = """\
import functools


@functools.lru_cache
def pick(name):
    if name in {"alpha", "beta", "gamma", "delta"}:
        return name
    try:
        return int(name)
    except ValueError:
        return None


class Box:
    def size(self, limit=3):
        def inner():
            return limit
        return inner()
"""


def prints(tmp_path, text: str) -> dict:
    path = tmp_path / f"mod_{abs(hash(text))}.py"
    path.write_text(text)
    found = file_functions(str(path))
    assert found is not None
    return {
        "outer": found.outer,
        "whole": found.whole,
        **{q: (p.line, p.fingerprint) for q, p in found.functions.items()},
    }


def test_every_def_is_found_by_its_qualname_and_first_line(tmp_path):
    found = prints(tmp_path, MOD)
    lines = {name: value[0] for name, value in found.items() if name not in ("outer", "whole")}
    assert lines == {"pick": 4, "Box.size": 15, "Box.size.<locals>.inner": 16}


def test_comments_blank_lines_and_moves_change_nothing_but_lines(tmp_path):
    before = prints(tmp_path, MOD)
    after = prints(tmp_path, "# a comment\n\n" + MOD.replace("return name\n", "return name  # x\n"))
    assert after["pick"] == (6, before["pick"][1])
    assert (after["outer"], after["whole"]) == (before["outer"], before["whole"])


def test_a_changed_body_changes_its_function_and_its_enclosers_only(tmp_path):
    before = prints(tmp_path, MOD)
    after = prints(tmp_path, MOD.replace("return limit", "return limit + 1"))
    assert after["pick"] == before["pick"] and after["outer"] == before["outer"]
    assert after["Box.size"] != before["Box.size"]
    assert after["Box.size.<locals>.inner"] != before["Box.size.<locals>.inner"]
    assert after["whole"] != before["whole"]


def test_what_a_try_covers_counts(tmp_path):
    moved = MOD.replace(
        "    try:\n        return int(name)\n",
        "    number = int(name)\n    try:\n        return number\n",
    )
    assert prints(tmp_path, moved)["pick"][1] != prints(tmp_path, MOD)["pick"][1]


def test_decorators_and_defaults_run_outside_the_function_so_they_change_outer(tmp_path):
    before = prints(tmp_path, MOD)
    assert prints(tmp_path, MOD.replace("limit=3", "limit=4"))["outer"] != before["outer"]
    assert prints(tmp_path, MOD.replace("@functools.lru_cache\n", ""))["outer"] != before["outer"]


def test_fingerprints_do_not_depend_on_the_process_string_hashes(tmp_path):
    """A set literal is a frozenset constant whose order follows PYTHONHASHSEED."""
    path = tmp_path / "mod.py"
    path.write_text(MOD)
    script = (
        "import json, sys\nfrom heal_ls.impact.fingerprints import file_functions\n"
        "f = file_functions(sys.argv[1])\n"
        "print(json.dumps([f.whole, f.outer, f.functions['pick'].fingerprint]))"
    )
    seen = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script, str(path)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        seen.add(tuple(json.loads(done.stdout)))
    assert len(seen) == 1


def test_a_file_that_does_not_compile_is_no_file(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f():\n    return 1\nreturn 2\n")
    assert file_functions(str(path)) is None


def test_the_layout_moves_with_lines_inside_a_function_not_above_it(tmp_path):
    """A function's layout (where its code sits after its first line: the offsets its blocks
    are kept at) changes with a comment added inside it, not with lines added above it; its
    last line holds its nested code too."""

    def read(text):
        path = tmp_path / f"m{abs(hash(text))}.py"
        path.write_text(text)
        found = file_functions(str(path))
        assert found is not None
        return found.functions

    before = read(MOD)
    above = read("# one\n# two\n" + MOD)
    inside = read(MOD.replace("    try:\n", "    # a comment\n    try:\n"))
    assert above["pick"].layout == before["pick"].layout
    assert above["pick"].line == before["pick"].line + 2
    assert inside["pick"].fingerprint == before["pick"].fingerprint
    assert inside["pick"].layout != before["pick"].layout
    assert inside["Box.size"].layout == before["Box.size"].layout
    assert before["Box.size"].last == MOD.splitlines().index("        return inner()") + 1


def test_the_bytecode_an_import_left_is_read_as_python_would_take_it(tmp_path, monkeypatch):
    """A module pytest imported has its code in __pycache__: it is read instead of compiling the
    source when Python's own import would take it (the source's mtime and size in its header),
    and gives the same fingerprints; one for another state of the source is not."""
    path = tmp_path / "mod.py"
    path.write_text(MOD)
    timestamp = py_compile.PycInvalidationMode.TIMESTAMP  # as an import writes it
    pyc = Path(py_compile.compile(str(path), doraise=True, invalidation_mode=timestamp))
    st = os.stat(path)
    seen = (st.st_mtime_ns, st.st_size)
    assert fingerprints.imported_code(str(path), seen) is not None
    from_pyc = fingerprints.read_tree(path.read_bytes(), seen, str(path))
    with monkeypatch.context() as patched:
        patched.setattr(fingerprints, "imported_code", lambda path, seen: None)
        compiled = fingerprints.read_tree(path.read_bytes(), seen, str(path))
    assert compiled is not None and from_pyc == compiled
    # what is read is the pyc: one made from other code under this source's header is believed
    other = tmp_path / "other.py"
    other.write_text("def other():\n    return 1\n")
    header = pyc.read_bytes()[:16]
    pyc.write_bytes(
        header
        + Path(
            py_compile.compile(str(other), doraise=True, invalidation_mode=timestamp)
        ).read_bytes()[16:]
    )
    believed = fingerprints.read_tree(path.read_bytes(), seen, str(path))
    assert believed is not None and list(believed.functions) == ["other"]
    # ...and only for the source as the header says it was (here one byte longer: compiled)
    longer = (seen[0], seen[1] + 1)
    assert fingerprints.imported_code(str(path), longer) is None
    assert fingerprints.read_tree(path.read_bytes(), longer, str(path)) == replace(
        compiled, signature=longer
    )
