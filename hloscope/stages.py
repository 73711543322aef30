"""The stages a program passes through on its way to a kernel, and every name they go by.

JAX calls the HLO before optimization ``hlo`` (``Lowered.as_text(dialect="hlo")``), XLA's dump
files call it ``before_optimizations``, people say "before"; the optimized module is
``optimized_hlo``, ``after_optimizations`` or "after". :meth:`Stage.parse` accepts all of them,
so a command line, a capture and a dump folder all speak of the same :class:`Stage`.

    >>> Stage.parse("after")
    <Stage.OPTIMIZED_HLO: 'optimized_hlo'>
    >>> Stage.parse("before_optimizations").dump_name
    'before_optimizations'
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Stage", "UnknownStageError"]

from .errors import UnknownStageError


class Stage(StrEnum):
    """One stage of compilation, in compiler order."""

    JAXPR = "jaxpr"
    STABLEHLO = "stablehlo"
    HLO = "hlo"
    OPTIMIZED_HLO = "optimized_hlo"

    @classmethod
    def parse(cls, name: str | Stage) -> Stage:
        """The stage ``name`` stands for: a value or any alias (case-insensitive).

        Raises :class:`UnknownStageError` listing the accepted names.
        """
        if isinstance(name, Stage):
            return name
        found = _ALIASES.get(str(name).strip().lower())
        if found is None:
            accepted = ", ".join(sorted(_ALIASES))
            raise UnknownStageError(f"unknown stage {name!r}; use one of {accepted}")
        return found

    @property
    def is_hlo(self) -> bool:
        """Whether this stage's text is HLO (what :func:`hloscope.parse` reads)."""
        return self in (Stage.HLO, Stage.OPTIMIZED_HLO)

    @property
    def dump_name(self) -> str | None:
        """The stage's name in XLA dump file names (``before_optimizations``...), if it has one."""
        return _DUMP_NAMES.get(self)

    @property
    def short(self) -> str:
        """``before``/``after`` for the HLO stages, else the value (for tables and options)."""
        return _SHORT.get(self, self.value)


_DUMP_NAMES = {Stage.HLO: "before_optimizations", Stage.OPTIMIZED_HLO: "after_optimizations"}
_SHORT = {Stage.HLO: "before", Stage.OPTIMIZED_HLO: "after"}
_ALIASES: dict[str, Stage] = {
    **{stage.value: stage for stage in Stage},
    "before": Stage.HLO,
    "before_optimizations": Stage.HLO,
    "unoptimized": Stage.HLO,
    "after": Stage.OPTIMIZED_HLO,
    "after_optimizations": Stage.OPTIMIZED_HLO,
    "optimized": Stage.OPTIMIZED_HLO,
    "compiled": Stage.OPTIMIZED_HLO,
    "mlir": Stage.STABLEHLO,
}
