"""Function coverage without a trace hook: workspace modules report their own calls."""

import asyncio
import importlib
import sys
import traceback
from pathlib import Path

import pytest
from heal_ls.testing.prestart import PLUGIN_DIR

sys.path.insert(0, PLUGIN_DIR)
import heal_overlay  # noqa: E402
import heal_report_parts as parts  # noqa: E402
import heal_watch  # noqa: E402

SOURCE = '''\
import functools


def leaf(x):
    return x + 1


def top(n):
    """Doc stays."""
    return [leaf(i) for i in range(n)]


@functools.lru_cache()
def decorated(x):
    return x


def outer():
    def middle():
        def inner():
            return 1 / 0
        return inner
    return middle()()


def gen():
    yield 1


async def coro():
    return 2


class Thing:
    def method(self):
        return (lambda: 3)()
'''


@pytest.fixture
def recorder(tmp_path):
    made = heal_watch.CallRecorder(parts.PathRules(str(tmp_path)))
    sys.path.insert(0, str(tmp_path))
    yield made
    sys.path.remove(str(tmp_path))
    made.close()


def _import(tmp_path, name, text, folder=""):
    path = tmp_path / folder / f"{name}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return importlib.import_module(f"{folder}.{name}" if folder else name), str(path)


def test_workspace_functions_report_each_run_once_with_their_code_object_key(tmp_path, recorder):
    mod, path = _import(tmp_path, "hits_mod", SOURCE)
    recorder.start()
    try:
        mod.top(50)
        mod.decorated(1)
        list(mod.gen())
        asyncio.run(mod.coro())
        mod.Thing().method()
        with pytest.raises(ZeroDivisionError) as info:
            mod.outer()
    finally:
        recorder.stop()
    lines = {code.co_firstlineno for code in (mod.leaf.__code__, mod.top.__code__)}
    lines |= {mod.decorated.__wrapped__.__code__.co_firstlineno, mod.gen.__code__.co_firstlineno}
    lines |= {mod.coro.__code__.co_firstlineno, mod.Thing.method.__code__.co_firstlineno}
    lines |= {mod.outer.__code__.co_firstlineno, 19, 20}  # outer.<locals>.middle, ...inner
    assert recorder.collected() == sorted(f"{path}:{line}" for line in lines)  # no lambda/listcomp
    assert mod.decorated.__wrapped__.__code__.co_firstlineno == 13  # the decorator's line
    # The module's own lines, docstrings and tracebacks are as written.
    assert mod.top.__doc__ == "Doc stays."
    assert traceback.extract_tb(info.tb)[-1].lineno == 21
    assert traceback.extract_tb(info.tb)[-1].line == "return 1 / 0"


def test_nothing_is_recorded_outside_start_and_stop_and_reset_forgets(tmp_path, recorder):
    mod, path = _import(
        tmp_path, "hits_off", "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    )
    mod.f()
    assert recorder.collected() == []
    recorder.start()
    recorder.start()  # nested (a fixture set up inside a recorded call)
    mod.f()
    recorder.stop()
    mod.g()  # still inside the outer start
    recorder.stop()
    mod.g()
    assert recorder.collected() == [f"{path}:1", f"{path}:5"]
    recorder.reset()
    mod.f()
    assert recorder.collected() == []


def test_an_unrecorded_function_records_nothing_and_recording_resumes(tmp_path, recorder):
    source = "def f():\n    return 1\n\n\ndef g():\n    return f()\n"
    mod, path = _import(tmp_path, "hits_paused", source)
    explain = recorder.unrecorded(recorder.unrecorded(mod.g))  # nested pauses
    recorder.start()
    assert explain() == 1
    assert recorder.collected() == []
    mod.f()
    recorder.stop()
    assert recorder.collected() == [f"{path}:1"]


def test_pytests_assert_explanation_helpers_do_not_record_while_a_test_runs(tmp_path, recorder):
    """A rewritten assert calls `@pytest_ar._saferepr(x)` etc. only to explain its failure."""
    from _pytest.assertion import rewrite

    original = rewrite._saferepr
    source = "class Box:\n    def __repr__(self):\n        return 'Box()'\n"
    mod, path = _import(tmp_path, "hits_explained", source)
    recorder.start()
    try:
        shown = rewrite._saferepr(mod.Box())
        compared = rewrite._call_reprcompare(("==",), (False,), ("%(py0)s",), ([mod.Box()], []))
        explained = recorder.collected()
        repr(mod.Box())  # the test body's own repr is evidence
    finally:
        recorder.stop()
    assert shown == "Box()" and "Box()" in compared
    assert explained == []
    assert recorder.collected() == [f"{path}:2"]  # Box.__repr__
    recorder.close()
    assert rewrite._saferepr is original


def test_test_files_and_other_folders_are_not_instrumented(tmp_path, recorder):
    source = "def f():\n    return 1\n\n\ndef test_f():\n    assert f() == 1\n"
    mod, _ = _import(tmp_path, "test_hits_helper", source)  # a module of tests
    assert "__heal_ls_hit__" not in mod.f.__code__.co_names
    other = tmp_path.parent / f"{tmp_path.name}_elsewhere"
    other.mkdir()
    (other / "hits_outside.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    sys.path.insert(0, str(other))
    try:
        outside = importlib.import_module("hits_outside")
    finally:
        sys.path.remove(str(other))
    assert "__heal_ls_hit__" not in outside.f.__code__.co_names
    workspace, _ = _import(tmp_path, "hits_inside", "def f():\n    return 1\n")
    assert "__heal_ls_hit__" in workspace.f.__code__.co_names


def test_overlaid_workspace_modules_report_their_calls_too(tmp_path, recorder):
    path = tmp_path / "hits_over.py"
    path.write_text("def f():\n    return 'disk'\n", encoding="utf-8")
    overlay = heal_overlay.install({str(path): "\n\ndef f():\n    return 'overlay'\n"})
    sys.meta_path.remove(recorder.finder)  # the plugin's order: the recorder ahead of the overlay
    sys.meta_path.insert(0, recorder.finder)
    try:
        mod = importlib.import_module("hits_over")
        recorder.start()
        assert mod.f() == "overlay"
        recorder.stop()
    finally:
        heal_overlay.uninstall(overlay)
    assert recorder.collected() == [f"{path}:3"]


def test_mock_calls_are_recorded_with_the_workspace_function_that_made_them(tmp_path, recorder):
    from unittest import mock

    mod, path = _import(
        tmp_path, "hits_mocked", "def deliver(sender):\n    sender.send(1)\n\n\ndef run(s):\n"
        "    deliver(s)\n",
    )  # fmt: skip
    sender = mock.Mock()
    recorder.start()
    try:
        mod.run(sender)
        sender.send.assert_called_once_with(2)
    except AssertionError:
        callers = recorder.mock_callers(sys.exc_info()[2])
    finally:
        recorder.stop()
    assert callers == [f"{path}:1"]
    sender.send(3)  # not recording: not kept
    assert recorder.mock_calls.keys() == {id(sender.send)}


HELD = """\
from unittest import mock

import hits_held


def test_patched_in_a_with(table):
    with mock.patch("hits_held.bisect_left") as bisect:
        bisect.return_value = 1
        hits_held.best_fit(table)
        args, _ = bisect.call_args
        assert args[0] is not table


@mock.patch("hits_held.bisect_left", autospec=True)
def test_patched_by_a_decorator_with_autospec(table, bisect):
    bisect.return_value = 1
    hits_held.best_fit(table)
    assert bisect.call_args.args[0] is not table


def test_a_method_of_a_mock(table):
    sender = mock.Mock()
    hits_held.deliver(sender, table)
    assert sender.send.call_count == 2


def test_holding_a_mock_it_never_reads(table):
    with mock.patch("hits_held.bisect_left", return_value=1):
        assert hits_held.best_fit(table) == 3
"""


@pytest.mark.parametrize(
    ("test", "caller"),
    [
        ("test_patched_in_a_with", 4),
        ("test_patched_by_a_decorator_with_autospec", 4),
        ("test_a_method_of_a_mock", 8),
        ("test_holding_a_mock_it_never_reads", None),
    ],
)
def test_a_plain_assert_on_what_a_held_mock_recorded_names_its_callers(
    tmp_path, recorder, monkeypatch, test, caller
):
    """No mock assertion failed (the test read `call_args` and asserted on it itself): the
    mocks the failing test's frame holds name their callers, when it read their record."""
    source = (
        "from bisect import bisect_left\n\n\ndef best_fit(table):\n"
        "    return bisect_left(table, 3) + 1\n\n\ndef deliver(sender, table):\n"
        "    sender.send(table)\n"
    )
    for name in ("hits_held", "test_held"):  # each case imports its own
        monkeypatch.delitem(sys.modules, name, raising=False)
    _, path = _import(tmp_path, "hits_held", source)
    tests, _ = _import(tmp_path, "test_held", HELD)
    recorder.start()
    try:
        getattr(tests, test)((1, 2))
    except AssertionError:
        callers = recorder.mock_callers(sys.exc_info()[2])
    finally:
        recorder.stop()
    assert callers == ([f"{path}:{caller}"] if caller else [])


def test_instrumented_code_is_kept_in_the_cache_folder_and_read_back_only_for_the_same_source(
    tmp_path, recorder, monkeypatch
):
    import heal_hits

    cache = tmp_path / "hits-cache"
    monkeypatch.setenv(heal_hits.HITS_CACHE, str(cache))
    mod, path = _import(tmp_path, "hits_cached", "def f():\n    return 1\n")
    (kept,) = cache.iterdir()
    assert kept.name.endswith(f".{heal_hits.CACHE_TAG}.pyc")
    compiled = []
    real = heal_hits.compile_recording
    monkeypatch.setattr(
        heal_hits, "compile_recording", lambda s, p, b=None: compiled.append(p) or real(s, p, b)
    )
    loader = heal_hits.RecordingLoader("hits_cached", path)
    code = loader.get_code("hits_cached")  # the same source: from the cache, no compile
    assert compiled == [] and code.co_filename == path
    recorder.start()
    namespace: dict = {"__name__": "hits_cached"}
    exec(code, namespace)
    namespace["f"]()
    recorder.stop()
    assert recorder.collected() == [f"{path}:1"]  # the cached code still reports its runs
    (tmp_path / "hits_cached.py").write_text("def f():\n    return 2\n")
    loader.get_code("hits_cached")  # the source changed: compiled again, cache replaced
    assert compiled == [path] and len(list(cache.iterdir())) == 1
    monkeypatch.delenv(heal_hits.HITS_CACHE)
    assert heal_hits.cache_path(path) is None  # no folder given: nothing kept


BRANCHY = '''\
def pick(x):
    """Doc stays."""
    if x > 0:
        y = 1
    elif x < -5:
        y = 2
    else:
        y = 3
    for i in range(x if x > 0 else 0):
        y += i
    try:
        y = 10 // x
    except ZeroDivisionError:
        y = 0
    finally:
        y += 1
    def inner():
        if y:
            return y
        return -1
    return inner()
'''


def test_with_blocks_each_branch_taken_is_recorded_by_its_first_line(
    tmp_path, recorder, monkeypatch
):
    import heal_hits

    monkeypatch.setenv(heal_hits.BLOCKS, "1")
    mod, path = _import(tmp_path, "hits_blocks", BRANCHY)
    recorder.start()
    mod.pick(0)
    recorder.stop()
    functions, blocks = recorder.collected_with_blocks()
    assert functions == [f"{path}:1", f"{path}:17"]  # the defs, as without blocks
    # else (8), after the if (9), after the for (11), the handler (14), after the try (17),
    # inner's if body (19); never the loop body (10), the elif's body (6) or inner's return -1
    assert blocks == {path: [5, 8, 9, 11, 14, 17, 19]}
    recorder.reset()
    recorder.start()
    mod.pick(3)
    recorder.stop()
    assert recorder.collected_with_blocks()[1] == {path: [4, 9, 10, 11, 17, 19]}
    assert mod.pick.__doc__ == "Doc stays." and mod.pick(-9) == -1  # behaviour unchanged


def test_without_blocks_no_block_is_recorded_and_none_is_reported(tmp_path, recorder, monkeypatch):
    import heal_hits

    monkeypatch.delenv(heal_hits.BLOCKS, raising=False)
    mod, path = _import(tmp_path, "hits_noblocks", BRANCHY)
    recorder.start()
    mod.pick(0)
    recorder.stop()
    assert recorder.collected_with_blocks() == ([f"{path}:1", f"{path}:17"], None)


def test_block_code_is_cached_apart_from_the_plain_instrumented_code(tmp_path, monkeypatch):
    import heal_hits

    monkeypatch.setenv(heal_hits.HITS_CACHE, str(tmp_path))
    path = str(tmp_path / "m.py")
    assert heal_hits.cache_path(path, True).endswith(f".{heal_hits.BLOCKS_TAG}.pyc")
    assert heal_hits.cache_path(path, True) != heal_hits.cache_path(path)


def test_instrumented_code_places_every_node_it_adds(tmp_path):
    """The added calls carry their statement's place, so no fix_missing_locations walk is
    needed: the same code (line table and positions included) as with that walk, for modules
    with every kind of block, with blocks and without."""
    import ast
    import marshal

    import heal_hits

    def walked(source, path, blocks):  # how the code was compiled before
        tree = ast.parse(source, str(path))
        heal_hits._AddHits(str(path), blocks).add(tree.body)
        return compile(ast.fix_missing_locations(tree), str(path), "exec", dont_inherit=True)

    sources = [SOURCE, BRANCHY, Path(parts.__file__).read_text(encoding="utf-8")]
    for number, source in enumerate(sources):
        path = tmp_path / f"m{number}.py"
        for blocks in (False, True):
            code = heal_hits.compile_recording(source, str(path), blocks)
            assert marshal.dumps(code) == marshal.dumps(walked(source, path, blocks))


DEFS_EVERYWHERE = """
import contextlib


def f_top():
    def f_nested():
        class K:
            def f_in_class_in_def(self):
                pass
        return K
    if True:
        def f_in_if_in_def():
            pass
    return f_nested


class C:
    def f_method(self):
        pass

    class Inner:
        async def f_async_in_inner(self):
            pass


if len("x"):
    def f_if():
        pass
else:
    def f_else():
        pass
for _ in ():
    def f_for():
        pass
else:
    def f_for_else():
        pass
while False:
    def f_while():
        pass
else:
    def f_while_else():
        pass
try:
    def f_try():
        pass
except ValueError:
    def f_except():
        pass
else:
    def f_try_else():
        pass
finally:
    def f_finally():
        pass
try:
    pass
except* TypeError:
    def f_except_star():
        pass
with contextlib.nullcontext():
    def f_with():
        pass
match 1:
    case 1:
        def f_case():
            pass
    case _:
        @staticmethod
        def f_decorated_case():
            pass
"""


def test_every_def_is_instrumented_wherever_it_sits(tmp_path):
    """The instrumenting walk visits statements only (defs are statements): a def in each kind of
    statement list (class, def, if/else, loops and their else, try's four parts and except*,
    with, match case) reports its run, and nothing else does."""
    import ast

    import heal_hits

    path = str(tmp_path / "everywhere.py")
    written = {
        node.name
        for node in ast.walk(ast.parse(DEFS_EVERYWHERE))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    hitting, stack = set(), [heal_hits.compile_recording(DEFS_EVERYWHERE, path, blocks=False)]
    while stack:
        code = stack.pop()
        stack += [const for const in code.co_consts if hasattr(const, "co_names")]
        if heal_hits.HIT in code.co_names:
            hitting.add(code.co_name)
    assert len(written) == 20 and hitting == written


class Counting:
    """A finder after the recorder that finds nothing and counts how often it is asked."""

    def __init__(self, name):
        self.name = name
        self.asked = 0

    def find_spec(self, fullname, path=None, target=None):
        self.asked += fullname == self.name
        return None


def test_a_missing_module_is_searched_once_an_import_after_its_first_miss(
    tmp_path, recorder, monkeypatch
):
    """The recorder asks the finders after it, and then the import system asks them again: a
    module none has is remembered missing, so importing it again asks them once (networkx
    imports the absent numpy in its hot functions), until the places to look change or
    importlib.invalidate_caches(); a module made meanwhile is then found and recorded."""
    name = "heal_missing_mod"
    counting = Counting(name)
    sys.meta_path.append(counting)
    try:
        for _ in range(3):
            with pytest.raises(ModuleNotFoundError):
                importlib.import_module(name)
        assert counting.asked == 2 + 1 + 1
        monkeypatch.syspath_prepend(tmp_path / "elsewhere")  # another place to look: searched again
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)
        assert counting.asked == 4 + 2
        (tmp_path / f"{name}.py").write_text("def made():\n    return 1\n", encoding="utf-8")
        importlib.invalidate_caches()
        mod = importlib.import_module(name)
    finally:
        sys.meta_path.remove(counting)
    recorder.start()
    mod.made()
    recorder.stop()
    assert recorder.collected() == [f"{tmp_path / name}.py:1"]


def test_split_hits_parts_functions_and_blocks_and_parses_each_key_once(monkeypatch):
    """split_hits gives the sorted function keys and each file's sorted block lines; a key's
    parse is kept for the process (every test of a file hits mostly the same keys), and a later
    recording's split is the same as a first one's."""
    import heal_hits

    parsed: list[str] = []
    parse = heal_hits._parse

    def counted(key):
        parsed.append(key)
        return parse(key)

    monkeypatch.setattr(heal_hits, "_PARSED", {})
    monkeypatch.setattr(heal_hits, "_parse", counted)
    keys = {"/w/a.py:9", "/w/a.py:3", "/w/a.py:12:b", "/w/a.py:5:b", "/w/b:c.py:7:b", "/w/b.py:1"}
    want = (
        ["/w/a.py:3", "/w/a.py:9", "/w/b.py:1"],
        {"/w/a.py": [5, 12], "/w/b:c.py": [7]},
    )
    assert heal_hits.split_hits(keys) == want
    assert sorted(parsed) == sorted(keys)
    assert heal_hits.split_hits(set(keys)) == want
    assert heal_hits.split_hits({"/w/a.py:5:b", "/w/a.py:3"}) == (["/w/a.py:3"], {"/w/a.py": [5]})
    assert len(parsed) == len(keys)  # no key parsed twice
