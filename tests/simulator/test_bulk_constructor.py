"""``bulk_constructor`` builds the same frozen records as the classes do."""

from __future__ import annotations

import dataclasses

import pytest

from simulator.model import ArtifactVersion, Event, bulk_constructor, new_artifact_version, new_event


def _values(record) -> list:
    return [getattr(record, f.name) for f in dataclasses.fields(record)]


def test_every_record_of_a_world_rebuilt_in_bulk_equals_the_class_built_one(default_world):
    for build, cls, records in ((new_event, Event, default_world.events),
                                (new_artifact_version, ArtifactVersion, default_world.artifacts)):
        rebuilt = [build(*_values(r)) for r in records]
        assert rebuilt == [cls(*_values(r)) for r in records] == list(records)
        assert {type(r) for r in rebuilt} == {cls}
        with pytest.raises(dataclasses.FrozenInstanceError):
            rebuilt[0].subsystem = "hr"  # type: ignore[misc]


def test_a_record_missing_a_field_is_refused_not_half_built():
    with pytest.raises(TypeError):
        new_event("EV-1")


def test_classes_it_cannot_build_faithfully_are_refused():
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived(ArtifactVersion):  # a subclass: its layout is its base's plus its own
        extra: int = 0

    for cls in (Unslotted, Checked, Derived):
        with pytest.raises(TypeError, match=cls.__name__):
            bulk_constructor(cls)
