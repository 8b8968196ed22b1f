"""A project whose one test is flaky: it passes every third run (a counter file; `every` sets
another period), shared by the stdio and the Neovim tests of flaky triage."""

# tick() returns 0, 0, 1, 0, 0, 1... across runs (a counter file): the test passes every third run
CLOCK = """\
import pathlib

COUNTER = pathlib.Path(__file__).with_name("calls.txt")


def tick():
    calls = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(calls + 1))
    return 1 if calls % EVERY == EVERY - 1 else 0
"""
TEST = "from clock import tick\n\n\ndef test_tick():\n    assert tick() == 1\n"
NODEID = "tests/test_clock.py::test_tick"


def flaky_project(workspace, every: int = 3) -> None:
    (workspace / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (workspace / "clock.py").write_text(CLOCK.replace("EVERY", str(every)))
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_clock.py").write_text(TEST)
