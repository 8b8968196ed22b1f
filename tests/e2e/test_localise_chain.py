"""A failure our code wrapped (`raise Unresolvable(url) from error`) keeps the exceptions it
was raised while handling, with their own frames, on a small project run for real.

The test hands the resolver a fake opener that checks the headers it is given; the check fails
inside `retrieve`, which forgot the User-Agent, and `Resolver.lookup` wraps that failure in its
own error. The reported traceback ends at the wrapping raise: only the chain shows `retrieve`.
"""

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.testing.options import RunOptions
from helpers.projects import write_files

FILES = {
    "pytest.ini": "[pytest]\npythonpath = src\ntestpaths = tests\n",
    "src/refs/__init__.py": "",
    "src/refs/fetch.py": """
        class Unresolvable(Exception):
            pass


        def retrieve(url, opener):
            return opener(url, {"Accept": "application/json"})


        class Resolver:
            def __init__(self, opener, cache=None):
                self.opener = opener
                self.cache = cache or {}

            def lookup(self, url):
                if url in self.cache:
                    return self.cache[url]
                try:
                    found = self.cache[url] = retrieve(url, self.opener)
                except Exception as error:
                    raise Unresolvable(url) from error
                return found
    """,
    "tests/test_fetch.py": """
        from refs.fetch import Resolver


        def opener(url, headers):
            assert "User-Agent" in headers
            return {"url": url}


        def test_lookup_sends_a_user_agent():
            assert Resolver(opener).lookup("https://x.org/a") == {"url": "https://x.org/a"}


        def test_lookup_reads_the_cache():
            cache = {"https://x.org/a": {"url": "kept"}}
            assert Resolver(opener, cache).lookup("https://x.org/a") == {"url": "kept"}
    """,
}
FAILING = "tests/test_fetch.py::test_lookup_sends_a_user_agent"


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    project: Path = write_files(tmp_path_factory.mktemp("refs"), FILES)
    return asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


def test_the_failure_keeps_the_exception_it_was_raised_while_handling(checked):
    run, _ = checked
    (failure,) = run.failures
    assert (failure.exc_type, failure.frames[-1].function) == ("Unresolvable", "lookup")
    (chained,) = failure.chain
    assert (chained.exc_type, chained.cause) == ("AssertionError", True)
    assert [f.function for f in chained.frames] == ["lookup", "retrieve", "opener"]
