"""The warm server's messages are heal_protocol's dataclasses, one JSON line each, written and
read by the same encode/decode on both sides: a field the other side does not send is an error
there, not a silent default."""

from __future__ import annotations

import json
from dataclasses import replace

import heal_protocol as wire
import pytest

RUN = wire.Run(
    id=7,
    argv=["-q", "tests"],
    env={"PATH": "/bin"},
    cwd="/w",
    output="/o/out",
    timeout=30.0,
    pycache="/c",
    sandbox=wire.Limits(
        memory=1 << 30,
        pid_namespace=True,
        fresh=wire.Fresh(tmpfs=[("/tmp", 1024)], binds=["/w/.venv"], covers=["/w/s.sock"]),
    ),
)


@pytest.mark.parametrize(
    "message",
    [
        RUN,
        wire.Kill(id=7),
        wire.Exit(),
        wire.Ready(pid=10, python="3.11", site_dirs=["/site"]),
        wire.Started(id=7, pid=11),
        wire.Done(id=7, returncode=1, timed_out=False, cpu=0.25),
        wire.Error(id=7, message="pytest", kind=wire.DOUBT_PLAIN),
        wire.Learned(modules=["yaml"], rewritten=wire.Rewritten(["pkg.plugin"], ["pkg"], "tag")),
        wire.Tainted(module="threadlib"),
    ],
)
def test_every_message_survives_the_line(message):
    line = wire.encode(message)
    assert "\n" not in line
    decoded = wire.decode(line)
    assert type(decoded) is type(message)
    assert json.loads(wire.encode(decoded)) == json.loads(line)


def test_the_tag_comes_from_the_class():
    assert json.loads(wire.encode(wire.Kill(id=3))) == {"op": wire.KILL, "id": 3}
    assert json.loads(wire.encode(wire.Tainted(module="m"))) == {
        "event": wire.TAINTED,
        "module": "m",
    }


def test_nested_payloads_come_back_typed():
    decoded = wire.decode(wire.encode(RUN))
    assert isinstance(decoded.sandbox, wire.Limits)
    assert isinstance(decoded.sandbox.fresh, wire.Fresh)
    [(path, size)] = decoded.sandbox.fresh.tmpfs
    assert (path, size) == ("/tmp", 1024)


def test_unknown_keys_are_ignored_and_missing_ones_refused():
    line = json.dumps({"event": wire.STARTED, "id": 1, "pid": 2, "later": True})
    assert wire.decode(line) == wire.Started(id=1, pid=2)
    with pytest.raises(TypeError):
        wire.decode(json.dumps({"event": wire.DONE, "id": 1}))  # no returncode, no timed_out
    with pytest.raises(TypeError):
        wire.decode(json.dumps({"event": "nonsense"}))
    with pytest.raises(TypeError):
        wire.decode("[1, 2]")


def test_server_options_round_trip():
    options = wire.ServerOptions(
        preload=["yaml"], rewritten=wire.Rewritten(["p"], [], None), exclude=["x"]
    )
    assert wire.build(wire.ServerOptions, json.loads(wire.encode(options))) == options
    assert wire.build(wire.ServerOptions, {}) == wire.ServerOptions()


@pytest.mark.parametrize(
    "record",
    [
        wire.Imported(plain=["yaml"], rewritten=["pkg.plugin"], marked=["pkg"], prefix=None),
        wire.Doubt(kind=wire.DOUBT_PLAIN, message="pkg.plugin"),
    ],
)
def test_a_child_s_exchange_records_round_trip(record):
    assert wire.build(type(record), json.loads(wire.encode(record))) == record


def test_a_doubt_without_its_kind_is_refused():
    with pytest.raises(TypeError):
        wire.build(wire.Doubt, {"message": "m"})


def test_what_a_run_learned_is_read_before_its_done_is_sent(tmp_path):
    """The client removes a sandboxed run's exchange folder as soon as it hears Done: the server
    must have read the run's learned modules by then, or a loaded machine loses them every run."""
    import subprocess
    import sys

    import warm_server

    output = str(tmp_path / "out")
    learned = wire.Imported(plain=["wave"], rewritten=[], marked=[], prefix=None)
    (tmp_path / "out.modules").write_text(wire.encode(learned))
    child = subprocess.Popen([sys.executable, "-c", "pass"])  # reaped by the server, not here
    server = warm_server.WarmServer.__new__(warm_server.WarmServer)
    server.children = {child.pid: warm_server.Child(replace(RUN, output=output), deadline=1e12)}
    server.pending_learn = None
    sent = []

    def send(message: object) -> None:  # the client: Done -> the exchange folder is gone
        sent.append(message)
        if isinstance(message, wire.Done):
            for leftover in tmp_path.iterdir():
                leftover.unlink()

    server.send = send
    while server.children:
        server.reap()
    assert [type(m) for m in sent] == [wire.Done]
    assert server.pending_learn is not None and server.pending_learn.plain == ["wave"]
