"""Server logs: a new server keeps the newest ones, and servers starting at once do not trip
over each other's pruning."""

import os

from heal_ls.lsp import log


def make_logs(folder, count):
    folder.mkdir(exist_ok=True)
    for n in range(count):
        path = folder / f"heal-ls-{1000 + n}.log"
        path.write_text("x")
        os.utime(path, (1000 + n, 1000 + n))


def test_a_new_server_keeps_the_newest_logs(tmp_path, monkeypatch):
    monkeypatch.setenv("HEAL_LS_LOG_DIR", str(tmp_path / "logs"))
    make_logs(tmp_path / "logs", log.KEPT_LOGS + 5)
    path = log.default_log_path()
    left = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert len(left) == log.KEPT_LOGS - 1  # and the new server's own makes KEPT_LOGS
    assert left[0] == f"heal-ls-{1000 + 6}.log"  # the oldest went
    assert path == str(tmp_path / "logs" / f"heal-ls-{os.getpid()}.log")


def test_a_log_another_server_pruned_meanwhile_does_not_fail_the_start(tmp_path, monkeypatch):
    """The listing still names a log another starting server has just removed."""
    monkeypatch.setenv("HEAL_LS_LOG_DIR", str(tmp_path / "logs"))
    make_logs(tmp_path / "logs", log.KEPT_LOGS + 5)
    listing = os.scandir

    def racing_scandir(folder):
        entries = list(listing(folder))
        for entry in entries[:3]:
            os.unlink(entry.path)  # the other server's pruning, between listing and stat
        return iter(entries)

    monkeypatch.setattr(log.os, "scandir", racing_scandir)
    assert log.default_log_path().endswith(f"heal-ls-{os.getpid()}.log")
    assert len(list((tmp_path / "logs").iterdir())) == log.KEPT_LOGS - 1
