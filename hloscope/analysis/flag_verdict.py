"""One flag's verdict in a flag audit (``try --audit-flags``): what leaving it out did, as
data. The judging is :mod:`.flag_audit`'s; this record stays apart from it so the variants'
result can carry verdicts without importing the judge (which reads the variants).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..json_fields import json_fields

__all__ = ["FlagVerdictKind", "FlagVerdict"]


class FlagVerdictKind(StrEnum):
    """What leaving one flag out did."""

    UNKNOWN = "unknown"
    NO_EFFECT = "no effect"
    COMPILE = "compile"  # compiled with it and not without, or the other way round
    CHANGES = "changes the module"


@dataclass(frozen=True, slots=True)
class FlagVerdict:
    """One flag's verdict: ``words`` say it (libtpu's own for an unknown flag, the figures it
    changes otherwise); ``without`` is the variant compiled without it (``None`` for a flag
    libtpu did not know: nothing was compiled with it)."""

    flag: str
    verdict: FlagVerdictKind
    words: str
    without: str | None = None

    def line(self) -> str:
        """The verdict as one line of ``try``'s notes."""
        return f"{self.flag}: {self.words}"

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "flag verdict words without")
