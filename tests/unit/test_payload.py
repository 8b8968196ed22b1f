"""heal_ls.payload.to_json, the one serialiser of what crosses a boundary as JSON: attrs classes
and dataclasses alike, nested, with fields kept local, optional or absent."""

from __future__ import annotations

from dataclasses import dataclass, field

import attrs
import pytest
from heal_ls import payload


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
