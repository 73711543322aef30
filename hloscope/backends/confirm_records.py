"""What a TPU confirm asks XLA:TPU and what it answers, as data: the ops to compile alone
(:class:`OpCandidate`), the job one child compiles (:class:`ConfirmJob`) and its verdicts
(:class:`CompileVerdict`, :class:`ConfirmResult`). The child and its parent are
:mod:`hloscope.capture.tpu_confirm`'s; the check that plans the candidates and reads the
verdicts is :mod:`hloscope.analysis.unsupported.confirm`, which reads these records and runs
nothing."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["OpCandidate", "ConfirmJob", "CompileVerdict", "ConfirmResult"]


@dataclass(frozen=True, slots=True)
class OpCandidate:
    """One op to compile alone: ``hlo`` (a module whose entry computes just the op) or
    ``primitive`` and ``use`` (the ``use``-th equation of that primitive in the function's
    jaxpr, 1-based). ``key`` names it in the answer."""

    key: str
    hlo: str | None = None
    primitive: str | None = None
    use: int = 1


@dataclass(slots=True)
class ConfirmJob:
    """What one child compiles for ``device``: the candidates, and the whole program when
    there is one (``script`` and ``function``, or the module text ``hlo``)."""

    device: str
    candidates: list[OpCandidate] = field(default_factory=list)
    script: str | None = None
    function: str | None = None
    hlo: str | None = None
    stand_ins: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConfirmJob:
        candidates = [OpCandidate(**c) for c in data.pop("candidates", [])]
        return cls(candidates=candidates, **data)


@dataclass(frozen=True, slots=True)
class CompileVerdict:
    """Whether XLA:TPU compiled it; ``message`` is its refusal in its own words."""

    ok: bool
    message: str | None = None


@dataclass(slots=True)
class ConfirmResult:
    """The child's answers: what compiled (JAX's device kind, ``"TPU v5 lite"``), the
    versions, the whole program's verdict (``None``: there was none) and each candidate's."""

    compiled_for: str
    versions: dict[str, str]
    whole: CompileVerdict | None
    ops: dict[str, CompileVerdict]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConfirmResult:
        whole = data.get("whole")
        return cls(
            compiled_for=str(data["compiled_for"]),
            versions=dict(data.get("versions") or {}),
            whole=CompileVerdict(**whole) if whole is not None else None,
            ops={key: CompileVerdict(**value) for key, value in data["ops"].items()},
        )
