"""The flag audit of ``try --audit-flags`` (and ``report --try '--audit-flags'``), judged: for
each flag, what leaving it out did.

Data in: the baseline compiled with every flag libtpu knows, one compile per flag without it
(a :class:`~hloscope.analysis.variants.VariantOutcome` whose ``without_flags`` names it), and
the flags libtpu refused at load with its words (:func:`hloscope.drivers.variants.try_variants`
finds them). Out: one :class:`FlagVerdict` per flag, in the order the flags were given:

* **unknown**: this libtpu (or jaxlib) does not know it, in its own words;
* **no effect**: the module without it is the baseline's (up to names);
* **compile**: one of the two compiles was refused and the other not;
* **changes**: what it changes, the baseline (with it) against the compile without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .flag_verdict import FlagVerdict, FlagVerdictKind
from .variants import VariantOutcome, _changes

__all__ = ["FlagVerdictKind", "FlagVerdict", "flag_audit"]


def flag_audit(
    baseline: VariantOutcome,
    variants: Sequence[VariantOutcome],
    unknown: Mapping[str, str] | None = None,
) -> list[FlagVerdict]:
    """The verdict of each flag: those in ``unknown`` (flag -> libtpu's words) first, then one
    per variant that left exactly one flag out (``settings["without_flags"]``)."""
    out = [
        FlagVerdict(flag, FlagVerdictKind.UNKNOWN, f"unknown to this XLA:TPU ({said})")
        for flag, said in (unknown or {}).items()
    ]
    for outcome in variants:
        left_out = outcome.settings.get("without_flags") or []
        if len(left_out) == 1:
            out.append(_verdict(str(left_out[0]), baseline, outcome))
    return out


def _verdict(flag: str, baseline: VariantOutcome, without: VariantOutcome) -> FlagVerdict:
    name = flag[2:].partition("=")[0]
    said = next((line for line in baseline.log if name in line and "Unknown" in line), None)
    if said is not None:
        kind, words = FlagVerdictKind.UNKNOWN, f"unknown to this XLA:TPU ({said})"
    elif without.no_effect:
        kind, words = FlagVerdictKind.NO_EFFECT, "no effect (the module without it is the same)"
    elif not (baseline.compiled and without.compiled):
        kind = FlagVerdictKind.COMPILE
        words = f"compiled {baseline.compiled} with it, {without.compiled} without"
    else:
        kind = FlagVerdictKind.CHANGES
        words = f"changes the module ({_changes(without, baseline)})"
    return FlagVerdict(flag, kind, words, without.name)
