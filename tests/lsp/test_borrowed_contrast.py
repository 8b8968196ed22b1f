"""A run of the failing test alone ranks with the passing tests it borrows (the map fill's, then
the map's) as a run of its file does: with the blocks each of them ran, so the branch only the
failing test took leads, as `heal-ls check` says. Without their blocks the editor put the Error
on the property the failing line reads (tinydb's `LRUCache.lru`, where check named
`LRUCache.set`, whose eviction branch holds the slip)."""

import pytest
from helpers.lsp import eventually
from helpers.projects import write_files

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

FILES = {
    "pyproject.toml": "",
    "cache.py": """
        class Cache:
            def __init__(self, capacity):
                self.capacity = capacity
                self.items = {}

            @property
            def keys(self):
                return list(self.items)

            def get(self, key):
                return self.items.get(key)

            def set(self, key, value):
                self.items[key] = value
                if len(self.items) >= self.capacity:
                    del self.items[next(iter(self.items))]
    """,
    "tests/test_cache.py": """
        from cache import Cache


        def test_keys_in_order():
            cache = Cache(3)
            cache.set("a", 1)
            cache.set("b", 2)
            assert cache.keys == ["a", "b"]


        def test_get():
            cache = Cache(3)
            cache.set("a", 1)
            assert cache.get("a") == 1


        def test_keys_of_empty():
            assert Cache(3).keys == []


        def test_full_cache_keeps_capacity():
            cache = Cache(2)
            cache.set("a", 1)
            cache.set("b", 2)
            assert cache.keys == ["a", "b"]
    """,
}
FAILING = "tests/test_cache.py::test_full_cache_keeps_capacity"
KEYS_DEF, SET_DEF = 6, 12  # 0-based lines of `def keys` and `def set`


@pytest.fixture
def project() -> str:
    return "cache"


def error_lines(editor) -> list[int]:
    return [d.range.start.line for d in editor.diagnostics("cache.py")]


async def test_the_failing_test_alone_is_blamed_where_a_run_of_its_file_blames_it(vscode_client):
    editor = vscode_client.editor
    write_files(editor.root, FILES)
    result = await editor.command("heal.runTests", {"test": FAILING})
    assert (result["failed"], result["passed"]) == (1, 0), result
    assert error_lines(editor) == [KEYS_DEF]  # alone, with no contrast yet: the line's call
    await eventually(
        lambda: error_lines(editor) and error_lines(editor)[0] >= SET_DEF,
        timeout=60,
        what="the fill's file mates move it to Cache.set",
    )
    # the next run of it alone borrows them from the map at once, blocks and all
    result = await editor.command("heal.runTests", {"test": FAILING})
    assert result["failed"] == 1, result
    [error] = editor.diagnostics("cache.py")
    assert error.range.start.line >= SET_DEF, error
