"""Two environments side by side: what an upgrade of jax, jaxlib or libtpu changed in a compile.

``hloscope diff`` of one function compiled under two environments (a capture made with the old
jax against one made with the new, or a side captured by another interpreter: ``--python-a``)
puts, before the kernels, what the kernel diff cannot see:

* the versions of both sides (jax, jaxlib, libtpu, tensorflow, keras, Python: as each capture
  recorded them) and which changed;
* the compile time per stage (trace, lower, HLO passes, backend; and the total), A against B
  with the ratio B / A, from :mod:`hloscope.analysis.compile_time`;
* the HLO passes whose time changed most (summed per pass name, as ``compile-time`` ranks
  them), a pass that ran on one side only included.

One side may lack times (a dump made without hloscope, a capture older than the times): its
column is empty and a note says why; nothing is made up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...json_fields import json_fields
from ..compile_time import CompileStage

if TYPE_CHECKING:  # pragma: no cover
    from ..compile_time import CompileTime

__all__ = [
    "PACKAGES",
    "CompileStage",
    "VersionChange",
    "StageChange",
    "PassChange",
    "EnvironmentDiff",
    "environment_diff",
    "versions_differ",
]

#: The packages whose versions decide a compile, in the order they are shown; others a side
#: recorded follow in name order.
PACKAGES: tuple[str, ...] = ("jax", "jaxlib", "libtpu", "tensorflow", "keras", "python")


@dataclass(frozen=True, slots=True)
class VersionChange:
    """One package whose version differs (``None``: not installed on that side)."""

    package: str
    a: str | None
    b: str | None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "package a b")


def _ratio(a: float | None, b: float | None) -> float | None:
    """B / A, or ``None`` when either is unknown or A is zero."""
    if a is None or b is None or a <= 0:
        return None
    return b / a


@dataclass(frozen=True, slots=True)
class StageChange:
    """One stage's seconds on each side (``None``: not measured there)."""

    stage: CompileStage
    a_s: float | None
    b_s: float | None

    @property
    def ratio(self) -> float | None:
        return _ratio(self.a_s, self.b_s)

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "stage a_s b_s ratio")


@dataclass(frozen=True, slots=True)
class PassChange:
    """One pass name: its time summed over its runs on each side (``None``: it did not run
    there) and how many runs."""

    name: str
    pipeline: str
    a_s: float | None
    b_s: float | None
    runs_a: int = 0
    runs_b: int = 0

    @property
    def delta_s(self) -> float:
        return (self.b_s or 0.0) - (self.a_s or 0.0)

    @property
    def ratio(self) -> float | None:
        return _ratio(self.a_s, self.b_s)

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "name pipeline a_s b_s delta_s ratio runs_a runs_b")


@dataclass(slots=True)
class EnvironmentDiff:
    """What differs between the environments that compiled A and B (see the module doc)."""

    versions_a: dict[str, str]
    versions_b: dict[str, str]
    changed: list[VersionChange]
    stages: list[StageChange]
    passes: list[PassChange]
    #: How many pass names ran on either side (``passes`` lists the ones changed most).
    pass_names: int = 0
    compiled_for_a: str | None = None
    compiled_for_b: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "versions": {"a": self.versions_a, "b": self.versions_b},
            "changed": [c.to_dict() for c in self.changed],
            "compiled_for": {"a": self.compiled_for_a, "b": self.compiled_for_b},
            "stages": [s.to_dict() for s in self.stages],
            "passes": [p.to_dict() for p in self.passes],
            "pass_names": self.pass_names,
            "notes": self.notes,
        }


def _ordered(names: Sequence[str]) -> list[str]:
    known = [p for p in PACKAGES if p in names]
    return known + sorted(n for n in names if n not in PACKAGES)


def version_changes(
    a: Mapping[str, str | None], b: Mapping[str, str | None]
) -> list[VersionChange]:
    """The packages whose versions differ, a package on one side only included."""
    names = _ordered([*dict.fromkeys([*a, *b])])
    return [VersionChange(n, a.get(n), b.get(n)) for n in names if a.get(n) != b.get(n)]


def versions_differ(a: Mapping[str, str | None], b: Mapping[str, str | None]) -> bool:
    """Whether both sides recorded versions and some differ."""
    return bool(a) and bool(b) and bool(version_changes(a, b))


def _stage_value(report: CompileTime | None, stage: CompileStage) -> float | None:
    if report is None:
        return None
    if stage is CompileStage.TOTAL:
        return report.total_s
    value = getattr(report.stages, str(stage))
    return float(value) if value is not None else None


def _pass_changes(a: CompileTime | None, b: CompileTime | None) -> list[PassChange]:
    passes_a = {p.name: p for p in (a.passes if a is not None else [])}
    passes_b = {p.name: p for p in (b.passes if b is not None else [])}
    changes = []
    for name in dict.fromkeys([*passes_a, *passes_b]):
        pa, pb = passes_a.get(name), passes_b.get(name)
        either = pb if pb is not None else pa
        pipeline = either.pipeline if either is not None else ""
        changes.append(
            PassChange(
                name,
                pipeline,
                pa.time_s if pa is not None else None,
                pb.time_s if pb is not None else None,
                pa.runs if pa is not None else 0,
                pb.runs if pb is not None else 0,
            )
        )
    # The largest change in seconds first; a tie by name, so the order is stable.
    return sorted(changes, key=lambda c: (-abs(c.delta_s), c.name))


def _known(versions: Mapping[str, str | None]) -> dict[str, str]:
    """The installed packages' versions, in :data:`PACKAGES` order."""
    return {n: v for n in _ordered(list(versions)) if (v := versions[n]) is not None}


def environment_diff(
    versions_a: Mapping[str, str | None],
    versions_b: Mapping[str, str | None],
    time_a: CompileTime | None,
    time_b: CompileTime | None,
    *,
    top: int = 10,
    notes: Sequence[str] = (),
) -> EnvironmentDiff:
    """Compare two environments' versions and compile times (``None``: that side kept none;
    ``notes`` say why). ``top`` passes whose time changed most are kept (0: all)."""
    passes = _pass_changes(time_a, time_b)
    return EnvironmentDiff(
        versions_a=_known(versions_a),
        versions_b=_known(versions_b),
        changed=version_changes(versions_a, versions_b),
        stages=[
            StageChange(s, _stage_value(time_a, s), _stage_value(time_b, s)) for s in CompileStage
        ],
        passes=passes[:top] if top else passes,
        pass_names=len(passes),
        compiled_for_a=time_a.compiled_for if time_a is not None else None,
        compiled_for_b=time_b.compiled_for if time_b is not None else None,
        notes=list(notes),
    )
