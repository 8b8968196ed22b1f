"""diagnose.locate_all: a failure we cannot locate is reported without a target, and never
hides the other failures (the CLI and the server share this)."""

from heal_ls import diagnose
from heal_ls.models import Failure, Frame, RunResult


def test_an_unlocatable_failure_does_not_hide_the_others(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("def f():\n    return 1 / 0\n")
    path = str(tmp_path / "m.py")
    good = Failure(
        id="t::good", exc_type="ZeroDivisionError", message="", frames=[Frame(path, 2, "f")]
    )
    odd = Failure(id="t::odd", exc_type="ValueError", message="", frames=[Frame(path, 2, "f")])
    real = diagnose.locate

    def locate(failure, root, run):
        if failure is odd:
            raise RuntimeError("index out of sync")
        return real(failure, root, run)

    monkeypatch.setattr(diagnose, "locate", locate)
    run = RunResult(root=str(tmp_path), failed=2, failures=[good, odd])
    located = {f.id: where for f, where in diagnose.locate_all(run.failures, str(tmp_path), run)}
    assert located["t::good"].healable and located["t::good"].suspects[0].qualname == "f"
    assert not located["t::odd"].healable and not located["t::odd"].suspects
    assert located["t::odd"].reason == "locate failed: index out of sync"
