"""diagnose.locate_all: a failure we cannot locate is reported without a target, and never
hides the other failures (the CLI and the server share this)."""

import asyncio
import time

from heal_ls import diagnose
from heal_ls.impact import feed
from heal_ls.impact.store import Function, ImpactMap
from heal_ls.models import Failure, Frame, RunResult


def test_an_unlocatable_failure_does_not_hide_the_others(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("def f():\n    return 1 / 0\n")
    path = str(tmp_path / "m.py")
    good = Failure(
        id="t::good", exc_type="ZeroDivisionError", message="", frames=[Frame(path, 2, "f")]
    )
    odd = Failure(id="t::odd", exc_type="ValueError", message="", frames=[Frame(path, 2, "f")])
    real = diagnose.locate

    def locate(failure, root, run, **given):
        if failure is odd:
            raise RuntimeError("index out of sync")
        return real(failure, root, run, **given)

    monkeypatch.setattr(diagnose, "locate", locate)
    run = RunResult(root=str(tmp_path), failed=2, failures=[good, odd])
    located = {f.id: where for f, where in diagnose.locate_all(run.failures, str(tmp_path), run)}
    assert located["t::good"].healable and located["t::good"].suspects[0].qualname == "f"
    assert not located["t::odd"].healable and not located["t::odd"].suspects
    assert located["t::odd"].reason == "locate failed: index out of sync"


def shop(tmp_path) -> str:
    """A project whose test_sum fails (total adds 1) and whose test_empty passes."""
    (tmp_path / "shop.py").write_text("def total(xs):\n    return sum(xs) + 1\n")
    (tmp_path / "test_shop.py").write_text(
        "from shop import total\n\n"
        "def test_empty():\n    total([])\n\n"
        "def test_sum():\n    assert total([1, 2]) == 3\n"
    )
    return str(tmp_path)


def test_the_run_is_in_the_impact_map_when_diagnose_returns(tmp_path, monkeypatch):
    """The map is written while the failures are located (a real pytest run; the write made
    slow here), and diagnose returns only once it is: the passing test's row is there."""
    root = shop(tmp_path)
    write = feed._record

    def slow_write(*args):
        time.sleep(0.5)
        write(*args)

    monkeypatch.setattr(feed, "_record", slow_write)

    async def check():
        located = await diagnose.diagnose(root, tests=["test_shop.py::test_sum"])
        with ImpactMap.open(root) as impact:  # before the event loop ends
            return located, impact.tests_running(Function.at(root, root + "/shop.py", "total"))

    (_, located), ran = asyncio.run(check())
    assert [f.test for f, _ in located] == ["test_shop.py::test_sum"]
    assert located[0][1].suspects[0].qualname == "total"
    assert [t.nodeid for t in ran] == ["test_shop.py::test_empty"]


def test_a_re_check_reads_ahead_what_the_test_ran_before_any_row(tmp_path, monkeypatch):
    """Locating reads the failing test's file and the functions it ran: on a re-check the map
    names them, so they are queued for reading ahead as the run starts, not when the failed
    test's row arrives (often with the run's end, leaving it all to after the run)."""
    root = shop(tmp_path)
    asyncio.run(diagnose.diagnose(root, tests=["test_shop.py::test_sum"]))  # the map, filled
    events: list[tuple] = []
    take = diagnose.Prefetch.take

    def noted(self, paths, failing, ran=()):
        events.append(("take", tuple(paths), failing, tuple(ran)))
        take(self, paths, failing, ran)

    monkeypatch.setattr(diagnose.Prefetch, "take", noted)
    asyncio.run(
        diagnose.diagnose(
            root, tests=["test_shop.py::test_sum"], on_row=lambda row: events.append(("row",))
        )
    )
    first = events[0]
    assert first[0] == "take" and first[2] is True  # before any row: read and index
    assert root + "/test_shop.py" in first[1]
    assert first[3] == (root + "/shop.py:1",)  # the function the test ran last time
