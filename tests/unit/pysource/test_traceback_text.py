"""The traceback text parser, on tracebacks produced by really running snippets (plus literals)."""

import subprocess
import sys
import textwrap

import pytest
from heal_ls.pysource.traceback_text import (
    failure_from_text,
    parse_faulthandler,
    parse_traceback,
)


def crash(tmp_path, code: str, name: str = "prog.py") -> tuple[str, str]:
    """Run code as a script with this interpreter; return (script path, stderr)."""
    script = tmp_path / name
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=30, cwd=tmp_path
    )
    assert done.returncode != 0
    return str(script), done.stderr


def test_simple_traceback_frames_innermost_last(tmp_path):
    path, text = crash(
        tmp_path,
        """
        def inner(d):
            return d["pear"]

        def outer():
            return inner({})

        outer()
        """,
    )
    [exc] = parse_traceback(text)
    assert (exc.exc_type, exc.message) == ("KeyError", "'pear'")
    assert [(f.path, f.line, f.function) for f in exc.frames] == [
        (path, 8, "<module>"),
        (path, 6, "outer"),
        (path, 3, "inner"),
    ]


def test_explicit_cause_and_implicit_context(tmp_path):
    _, text = crash(
        tmp_path,
        """
        def load():
            try:
                {}["x"]
            except KeyError as e:
                raise LookupError("missing x") from e

        try:
            load()
        except LookupError:
            raise RuntimeError("startup failed")
        """,
    )
    found = parse_traceback(text)
    assert [e.exc_type for e in found] == ["KeyError", "LookupError", "RuntimeError"]
    assert [e.chained_from for e in found] == [None, "cause", "context"]
    failure = failure_from_text(text, str(tmp_path))
    assert failure.exc_type == "RuntimeError" and failure.message == "startup failed"


def test_syntax_error_block_of_the_script_itself(tmp_path):
    path, text = crash(tmp_path, "x = 1\ndef f(:\n    pass\n")
    failure = failure_from_text(text, str(tmp_path))
    assert failure.exc_type == "SyntaxError"
    assert [(f.path, f.line) for f in failure.frames] == [(path, 2)]


def test_syntax_error_in_imported_module_ends_at_its_line(tmp_path):
    (tmp_path / "broken.py").write_text("def g():\n    return (\n", encoding="utf-8")
    _, text = crash(tmp_path, "import broken\n")
    failure = failure_from_text(text, str(tmp_path))
    assert failure.exc_type == "SyntaxError"
    assert failure.frames[-1].path == str(tmp_path / "broken.py")
    assert failure.frames[0].function == "<module>"


def test_recursion_with_repeated_lines(tmp_path):
    _, text = crash(tmp_path, "def r(n):\n    return r(n + 1)\n\nr(0)\n")
    [exc] = parse_traceback(text)
    assert exc.exc_type == "RecursionError"
    assert exc.repeats > 900
    assert exc.frames[-1].function == "r"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is 3.11+")
def test_exception_group_picks_first_leaf_with_group_frames(tmp_path):
    path, text = crash(
        tmp_path,
        """
        def fail(x):
            raise ValueError(x)

        def main():
            errors = []
            try:
                fail(1)
            except ValueError as e:
                errors.append(e)
            errors.append(ExceptionGroup("inner", [KeyError(3)]))
            raise ExceptionGroup("many", errors)

        main()
        """,
    )
    found = parse_traceback(text)
    assert [(e.exc_type, e.depth, e.is_group) for e in found] == [
        ("ExceptionGroup", 0, True),
        ("ValueError", 1, False),
        ("ExceptionGroup", 1, True),
        ("KeyError", 2, False),
    ]
    failure = failure_from_text(text, str(tmp_path))
    assert failure.exc_type == "ValueError"
    assert [f.function for f in failure.frames] == ["<module>", "main", "main", "fail"]


def test_frames_in_string_and_stdlib(tmp_path):
    _, text = crash(tmp_path, "import json\nexec(\"json.loads('{bad')\")\n")
    failure = failure_from_text(text, str(tmp_path))
    assert failure.exc_type == "JSONDecodeError"
    paths = [f.path for f in failure.frames]
    assert "<string>" in paths
    assert any(p.endswith("json/decoder.py") for p in paths)


def test_multiline_message_and_output_around_it(tmp_path):
    _, text = crash(
        tmp_path,
        """
        print("Starting")
        raise AssertionError("first line\\nsecond line")
        """,
    )
    text = "Starting\n" + text + "\nDone\n"  # output after a blank line is not message
    [exc] = parse_traceback(text)
    assert exc.message == "first line\nsecond line"


def test_dotted_exception_type_and_no_message(tmp_path):
    (tmp_path / "errs.py").write_text("class AppError(Exception):\n    pass\n", encoding="utf-8")
    _, text = crash(tmp_path, "import errs\nraise errs.AppError\n")
    [exc] = parse_traceback(text)
    assert (exc.exc_type, exc.short_type, exc.message) == ("errs.AppError", "AppError", "")


def test_relative_paths_are_resolved_against_root():
    text = "Traceback (most recent call last):\n  File \"tools/run.py\", line 3, in <module>\n    go()\nNameError: name 'go' is not defined\n"
    failure = failure_from_text(text, "/proj")
    assert failure.frames[0].path == "/proj/tools/run.py"
    assert failure.exc_type == "NameError"


def test_crlf_text_and_site_packages_frames():
    text = (
        "Traceback (most recent call last):\r\n"
        '  File "/proj/app.py", line 5, in main\r\n'
        "    requests.get(url)\r\n"
        '  File "/venv/lib/python3.11/site-packages/requests/api.py", line 73, in get\r\n'
        "    return request(...)\r\n"
        "ConnectionError: refused\r\n"
    )
    [exc] = parse_traceback(text)
    assert [f.line for f in exc.frames] == [5, 73]
    assert exc.message == "refused"


def test_text_without_traceback_gives_nothing():
    assert parse_traceback("All good\nError count: 0\n") == []
    assert failure_from_text("Segmentation fault\n", "/x") is None


def test_faulthandler_dump_of_a_hang(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text(
        "import faulthandler, time\n"
        "faulthandler.dump_traceback_later(0.3, exit=True)\n"
        "def wait():\n"
        "    time.sleep(10)\n"
        "wait()\n",
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=30)
    frames = parse_faulthandler(done.stderr)
    assert [(f.line, f.function) for f in frames] == [(5, "<module>"), (4, "wait")]
    assert frames[-1].path == str(script)


def test_faulthandler_prefers_current_thread():
    text = (
        "Fatal Python error: Segmentation fault\n\n"
        "Thread 0x0001 (most recent call first):\n"
        '  File "/a.py", line 1 in other\n\n'
        "Current thread 0x0002 (most recent call first):\n"
        '  File "/b.py", line 9 in crashy\n'
        '  File "/b.py", line 20 in <module>\n'
    )
    assert [f.function for f in parse_faulthandler(text)] == ["<module>", "crashy"]
