"""Where workspace code raised the exception a failed check was about (for the ranking).

`with pytest.raises(TypeError, match="Field for 'name'")` fails when the message is wrong: the
failure is pytest's AssertionError, raised in the test, yet the function with the bug is the one
that raised the TypeError. The same when the test keeps the exception and checks it itself:

    with pytest.raises(InvalidRequirement) as info:
        Requirement("name @ https://x.org;")
    assert str(info.value) == "..."      # fails: the message was built wrong

Stdlib only.
"""

import ast
import linecache
import re

CHECKERS = ("_pytest", "unittest")  # packages whose `match` / `__exit__` compare a caught exception
CHECKER_FUNCTIONS = ("match", "__exit__", "_check_match")


def caught_entries(exc, tb, paths):
    """(frame, line) of the workspace frames (outside tests) that raised the exception the failed
    check was about, outermost first; [] when the failure was about no caught exception."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    tests = [t for t in entries if paths.is_test_file(t.tb_frame.f_code.co_filename)]
    if not tests:
        return []
    below = entries[entries.index(tests[-1]) + 1 :]
    if exc.__context__ is not None and any(_is_checker(t.tb_frame) for t in below):
        caught = exc.__context__  # raised while pytest.raises / assertRaisesRegex compared it
    elif all(
        paths.is_runner(t.tb_frame.f_code.co_filename) or _in(t.tb_frame, "unittest") for t in below
    ):
        caught = _kept_exception(tests[-1], exc)  # the test's own assert failed (self.assert*)
    else:
        caught = None
    found = _raised_in(caught, paths)
    seen = {id(caught)}
    while caught is not None:  # `raise Invalid(str(e)) from e`: the message began further in
        caught = caught.__cause__ or caught.__context__
        inner = _raised_in(caught, paths)
        if not inner or id(caught) in seen:
            break
        seen.add(id(caught))
        found = inner
    return found


def _raised_in(exc, paths):
    found = []
    tb = exc.__traceback__ if exc is not None else None
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if paths.is_workspace(path) and not paths.is_test_file(path):
            found.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return found


def _is_checker(frame):
    return _in(frame, *CHECKERS) and frame.f_code.co_name in CHECKER_FUNCTIONS


def _in(frame, *packages):
    return frame.f_globals.get("__name__", "").split(".")[0] in packages


def _statement(filename, lineno):
    """The text of the statement holding `lineno` (`self.assertEqual(` names what it checks
    on the lines below), else that line alone."""
    lines = linecache.getlines(filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return linecache.getline(filename, lineno)
    spans = [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and not hasattr(node, "body")  # a compound statement: the simple one inside it
        and node.lineno <= lineno <= (node.end_lineno or node.lineno)
    ]
    if not spans:
        return linecache.getline(filename, lineno)
    first, last = min(spans, key=lambda span: span[1] - span[0])
    return "".join(lines[first - 1 : last])


def _is_exception_info(value):
    """pytest's ExceptionInfo, told by its type alone: a local's own `__getattr__` is never
    called (arpeggio's parse nodes assert on an unknown name: reading `_excinfo` from one turned
    the user's failed test into pytest's INTERNALERROR)."""
    kind = type(value)
    return kind.__name__ == "ExceptionInfo" and kind.__module__.startswith("_pytest.")


def _kept_exception(tb, exc):
    """An exception the test holds in a local (or in pytest's ExceptionInfo) that the failing
    line names."""
    line = _statement(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    for name, value in list(tb.tb_frame.f_locals.items()):
        if _is_exception_info(value):  # pytest's ExceptionInfo holds (type, value, tb)
            held = value._excinfo
            value = held[1] if isinstance(held, tuple) and len(held) == 3 else None
        if (
            isinstance(value, BaseException)
            and value is not exc
            and re.search(rf"\b{name}\b", line)
        ):
            return value
    return None
