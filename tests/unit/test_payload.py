"""heal_ls.payload.to_json, the one serialiser of what crosses a boundary as JSON: attrs classes
and dataclasses alike, nested, with fields kept local, optional or absent; and from_object, the
one reader, which reads them back and refuses data that does not fit, saying where."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

import attrs
import pytest
from heal_ls import models, payload
from heal_ls.models import Failure, Frame, RunResult


@dataclass
class Inner:
    runs: int
    seen: tuple[str, ...] = ()


@attrs.frozen
class Outer:
    name: str
    inner: Inner | None
    items: list[Inner]
    kept: bool = attrs.field(default=True, metadata={payload.LOCAL: True})
    maybe: str | None = attrs.field(default=None, metadata={payload.OMIT_NONE: True})


@dataclass
class Row:
    id: str
    extra: Inner | None | payload.Absent = field(default=payload.ABSENT)


def test_nested_attrs_and_dataclasses_become_plain_json():
    value = Outer("f", Inner(2, ("a",)), [Inner(1)], kept=False)
    assert payload.to_json(value) == {
        "name": "f",
        "inner": {"runs": 2, "seen": ["a"]},
        "items": [{"runs": 1, "seen": []}],
    }


def test_an_optional_field_is_sent_when_set_and_a_local_one_never():
    wire = payload.to_object(Outer("f", None, [], maybe="x"))
    assert wire == {"name": "f", "inner": None, "items": [], "maybe": "x"}


def test_absent_is_left_out_where_none_is_null():
    assert payload.to_object(Row("a")) == {"id": "a"}
    assert payload.to_object(Row("a", None)) == {"id": "a", "extra": None}
    assert payload.to_object(Row("a", Inner(1))) == {"id": "a", "extra": {"runs": 1, "seen": []}}


def test_to_object_refuses_what_is_not_a_payload_class():
    with pytest.raises(TypeError):
        payload.to_object({"id": "a"})


# payload.from_object: the one reader, back from JSON, as strict as the annotations


def round_trip(cls, value):
    return payload.from_object(cls, json.loads(json.dumps(payload.to_object(value))))


def test_from_object_reads_back_what_to_object_wrote_nested_payloads_too():
    frames = [Frame("/w/m.py", 3, "f", {"x": "1"}), Frame("/w/t.py", 9, "test_f")]
    failure = Failure("t.py::test_f", "KeyError", "'a'", frames, test="t.py::test_f",
                      blocks={"/w/m.py": [1, 3]}, caught=[Frame("/w/m.py", 4, "g")],
                      chain=[models.Chained("OSError", "gone", [Frame("/w/m.py", 5, "h")], True)])  # fmt: skip
    run = RunResult("/w", failed=1, seconds=0.5, failures=[failure],
                    tests=[models.TestOutcome("t.py::test_f", "failed", covered=["/w/m.py:1"])])  # fmt: skip
    assert round_trip(RunResult, run) == run
    assert round_trip(Outer, Outer("f", Inner(2, ("a", "b")), [Inner(1)], maybe="x")) == Outer(
        "f", Inner(2, ("a", "b")), [Inner(1)], maybe="x"
    )


def test_a_field_left_out_takes_its_default_absent_included_and_unknown_keys_are_ignored():
    assert payload.from_object(Row, {"id": "a", "later": 1}) == Row("a")
    assert payload.from_object(Row, {"id": "a"}).extra is payload.ABSENT
    assert payload.from_object(Row, {"id": "a", "extra": None}) == Row("a", None)
    assert payload.from_object(Row, {"id": "a", "extra": {"runs": 2}}) == Row("a", Inner(2))
    # a local field is never read, even when the data has it
    assert payload.from_object(Outer, {"name": "f", "inner": None, "items": [], "kept": False})


@dataclass
class Named:
    name: str = field(metadata={payload.LOCAL: True})  # not in the data: the caller knows it
    size: int = 0


def test_local_fields_are_the_callers_never_the_datas():
    assert payload.from_object(Named, {"size": 2}, {"name": "a"}) == Named("a", 2)
    assert payload.from_object(Named, {"name": "b"}, {"name": "a"}) == Named("a")
    with pytest.raises(payload.PayloadError, match="Named: .*'name'"):
        payload.from_object(Named, {"size": 2})
    with pytest.raises(payload.PayloadError, match="Named.size: expected int, got a string"):
        payload.from_object(Named, {"size": "2"}, {"name": "a"})


@dataclass
class Kinds:
    count: int
    ratio: float
    flag: bool
    mode: Literal["a", "b"]
    pair: tuple[str, int]
    by_name: dict[str, Inner]
    either: Inner | Row | None = None


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"count": "3"}, "Kinds.count: expected int, got a string"),
        ({"count": True}, "Kinds.count: expected int, got a boolean"),
        ({"count": 1.5}, "Kinds.count: expected int, got a number (1.5)"),
        ({"ratio": None}, "Kinds.ratio: expected float, got null"),
        ({"flag": 1}, "Kinds.flag: expected bool, got a number (1)"),
        ({"mode": "c"}, "Kinds.mode: expected one of ['a', 'b'], got 'c'"),
        ({"pair": ["x"]}, "Kinds.pair: expected 2 items, got 1"),
        ({"pair": ["x", "1"]}, "Kinds.pair[1]: expected int, got a string"),
        ({"by_name": []}, "Kinds.by_name: expected an object, got an array"),
        ({"by_name": {"k": {}}}, "Kinds.by_name['k']: field 'runs' is missing"),
        ({"by_name": {"k": {"runs": 1, "seen": "ab"}}},
         "Kinds.by_name['k'].seen: expected an array, got a string"),
        ({"either": 3}, "Kinds.either: expected Inner | Row | None, got a number (3)"),
    ],
)  # fmt: skip
def test_from_object_refuses_data_that_does_not_fit_saying_where(change, error):
    good = {"count": 3, "ratio": 1, "flag": True, "mode": "a", "pair": ["x", 1], "by_name": {}}
    assert payload.from_object(Kinds, good).ratio == 1  # an int is a float
    assert payload.from_object(Kinds, {**good, "either": {"id": "r"}}).either == Row("r")
    with pytest.raises(payload.PayloadError) as refused:
        payload.from_object(Kinds, {**good, **change})
    assert str(refused.value) == error
