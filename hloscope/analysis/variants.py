"""What-if variants of one program, judged: which fit, which changed nothing, which is best.

Data in: one :class:`VariantOutcome` per compile of the program (the baseline, as the script
gives it, and each variant: XLA:TPU's figures, read by the driver that compiled it,
:mod:`hloscope.drivers.variants`). Out (:func:`judge`):

* **fits**: compiled (XLA:TPU refuses a program that does not fit the chip's HBM, in its own
  words, which ``error`` keeps) and its peak per device (``memory_analysis()``'s
  ``peak_memory_in_bytes``) within the chip's memory (the device registry's row);
* **no effect**: the variant's optimized module equals, up to names and metadata
  (:func:`~hloscope.backends.variant_compile.canonical_fingerprint`), the module of the
  compile without one of its settings (the baseline, for a variant of one setting): that
  setting changed nothing (a remat policy that saves everything, a donation XLA could not
  use, a flag without effect). ``same_as`` names that compile;
* **ranked** by the goal (:class:`Goal`), best first, with the code change that gives the
  best (:func:`code_change`).

:func:`module_figures` reads one optimized module: its collective bytes per step and per
device (:func:`~hloscope.analysis.collectives.find_collectives`, each times its executions),
the step estimate (:func:`~hloscope.analysis.step_estimate.communication_of`), and its HBM
traffic (each kernel's bytes less those on chip, :func:`~hloscope.analysis.hbm.hbm_bytes`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..devices import DeviceSpec
from ..hlo.model import Module
from ..json_fields import json_fields

if TYPE_CHECKING:  # pragma: no cover
    from .flag_verdict import FlagVerdict

__all__ = [
    "Goal",
    "VariantOutcome",
    "TryResult",
    "SETTING_KEYS",
    "code_change",
    "judge",
    "module_figures",
    "sharding_warnings",
]

#: The settings a variant can change, in the order they are spelled.
SETTING_KEYS = ("mesh", "shard", "remat", "donate", "cast", "flags", "without_flags")


class Goal(StrEnum):
    """What ``--goal`` ranks by."""

    FIT = "fit"  # those that fit first, then the fastest step
    STEP = "step"  # the fastest step among those that fit
    MEMORY = "memory"  # the smallest peak per device


@dataclass(slots=True)
class VariantOutcome:
    """One compile of the program and what it gave (``None``: not known, or not compiled)."""

    name: str
    settings: dict[str, Any]
    applicable: bool = True
    compiled: bool = False
    error: str | None = None
    peak_bytes: int | None = None
    flops: float | None = None
    hbm_bytes: int | None = None
    collective_bytes: int | None = None
    exposed_comm_s: float | None = None
    step_s: float | None = None
    fingerprint: str | None = None
    placement: list[dict[str, str]] = field(default_factory=list)
    mesh: dict[str, int] | None = None
    compile_s: float | None = None
    cached: bool = False
    #: XLA:TPU's ``memory_analysis()`` of the compile (its sizes by name).
    memory: dict[str, int] = field(default_factory=dict)
    #: Where the optimized module is kept (the variant's cache entry).
    module_file: str | None = None
    #: The axes of the mesh the example arguments carry (what ``--meshes all`` factors).
    argument_axes: list[str] = field(default_factory=list)
    #: That mesh's axes and sizes, in its order (``None``: not known).
    argument_mesh: dict[str, int] | None = None
    #: Lines of the compile's log worth saying (a flag libtpu does not know, the SPMD
    #: partitioner's warnings).
    log: list[str] = field(default_factory=list)
    fits: bool | None = None
    no_effect: bool = False
    same_as: str | None = None
    no_effect_of: str | None = None
    #: What one setting changed where it changed the module: the figures of the compile
    #: without it (``compared_to``) against this one's (``effect_of``: that setting).
    effect: str | None = None
    effect_of: str | None = None
    compared_to: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VariantOutcome:
        known = set(cls.__dataclass_fields__)
        fields = {k: v for k, v in data.items() if k in known}
        return cls(**{"name": "", "settings": {}, **fields})

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(
                self,
                "name settings applicable compiled error fits peak_bytes flops hbm_bytes "
                "collective_bytes exposed_comm_s step_s no_effect no_effect_of same_as effect "
                "effect_of compared_to mesh placement compile_s cached module_file memory log",
            ),
            "sharding_warnings": sharding_warnings(self),
        }


@dataclass(slots=True)
class TryResult:
    """The baseline, the variants ranked best first by ``goal``, and the change to make."""

    target: str
    device: str
    memory_bytes: int | None
    goal: Goal
    baseline: VariantOutcome
    variants: list[VariantOutcome]
    notes: list[str] = field(default_factory=list)
    #: The words of the backend that compiled every variant ("XLA:TPU", a registered one's).
    compiled_by: str | None = None
    #: Each flag's verdict, when the variants were a flag audit (:mod:`.flag_audit`).
    audit: list[FlagVerdict] | None = None

    @property
    def ranked(self) -> list[VariantOutcome]:
        """Every compile, the baseline too, best first."""
        return rank([self.baseline, *self.variants], self.goal)

    @property
    def winner(self) -> VariantOutcome | None:
        best = self.ranked[0] if self.ranked else None
        return best if best is not None and best.compiled else None

    def change(self) -> list[str]:
        winner = self.winner
        return code_change(winner, self.target) if winner is not None else []

    def to_dict(self) -> dict[str, Any]:
        winner = self.winner
        baseline, variants = self.baseline.to_dict(), [v.to_dict() for v in self.variants]
        ranking = [v.name for v in self.ranked]
        _prove(ranking, [baseline, *variants])
        return {
            "target": self.target,
            "device": self.device,
            "compiled_by": self.compiled_by,
            "memory_bytes": self.memory_bytes,
            "goal": str(self.goal),
            "baseline": baseline,
            "variants": variants,
            "ranking": ranking,
            "winner": None if winner is None else winner.name,
            "change": self.change(),
            "notes": self.notes,
            **({} if self.audit is None else {"audit": [v.to_dict() for v in self.audit]}),
        }


def _prove(ranking: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    """Give each warning ``proven_by``: the best-ranked variant without it (``None``: none)."""
    from .variant_warnings import proven_by

    by_name = {row["name"]: row for row in rows}
    ranked = [by_name[name] for name in ranking if name in by_name]
    for row in rows:
        for warning in row["sharding_warnings"]:
            warning["proven_by"] = proven_by(warning, ranked, row["name"])


# ---- one module's figures -------------------------------------------------------------------


def module_figures(module: Module, device: str | DeviceSpec) -> dict[str, Any]:
    """``collective_bytes``, ``exposed_comm_s``, ``step_s`` and ``hbm_bytes`` of ``module``
    (an optimized SPMD module, per device and per step) on ``device``."""
    from .step_estimate import communication_of

    communication = communication_of(module, device)
    step = communication.step
    return {
        "collective_bytes": communication.result.executed_bytes,
        "exposed_comm_s": None if step is None else step.exposed_s,
        "step_s": None if step is None else step.total_s,
        "hbm_bytes": module_hbm_bytes(module),
    }


def module_hbm_bytes(module: Module) -> int:
    """The HBM traffic of one call of ``module``: every kernel's bytes less those it reads or
    writes on chip, times how often it runs (collectives and prefetches are not kernels)."""
    from .cost import instruction_costs, placements
    from .fusions import NOT_KERNELS
    from .hbm import hbm_bytes, is_prefetch
    from .step_estimate import is_collective_opcode

    cost_of = instruction_costs(module)
    total = 0
    for placement in placements(module).values():
        for inst in placement.computation.instructions:
            if inst.opcode in NOT_KERNELS or is_collective_opcode(inst.opcode):
                continue
            if is_prefetch(inst):
                continue
            total += hbm_bytes(inst, cost_of(inst)) * placement.executions
    return total


# ---- judging --------------------------------------------------------------------------------


def judge(
    target: str,
    device: str | DeviceSpec,
    baseline: VariantOutcome,
    variants: Sequence[VariantOutcome],
    goal: Goal | str = Goal.FIT,
    notes: Sequence[str] = (),
) -> TryResult:
    """The outcomes with ``fits`` and ``no_effect`` decided, ranked by ``goal``."""
    from ..devices import parse_device

    spec = parse_device(device) if isinstance(device, str) else device
    memory = spec.device.memory_bytes
    everything = [baseline, *variants]
    for outcome in everything:
        outcome.fits = _fits(outcome, memory)
    by_settings = {_key(o.settings): o for o in everything}
    for outcome in variants:
        _mark_no_effect(outcome, by_settings)
    return TryResult(target, str(spec), memory, Goal(goal), baseline, list(variants), list(notes))


def _fits(outcome: VariantOutcome, memory: int | None) -> bool | None:
    if not outcome.applicable:
        return None
    if not outcome.compiled:
        # XLA:TPU's own refusal for want of memory is a "does not fit"; any other is unknown.
        return False if outcome.error and "RESOURCE_EXHAUSTED" in outcome.error else None
    if outcome.peak_bytes is None or memory is None:
        return None
    return outcome.peak_bytes <= memory


def _key(settings: Mapping[str, Any]) -> str:
    import json

    return json.dumps({k: v for k, v in settings.items() if v}, sort_keys=True, default=str)


def _mark_no_effect(outcome: VariantOutcome, by_settings: Mapping[str, VariantOutcome]) -> None:
    """No effect when the module equals that of the compile without one of its settings;
    else what the last of its settings (the one a user adds to a layout) changed."""
    if outcome.fingerprint is None:
        return
    compared = []
    for name in SETTING_KEYS:
        if not outcome.settings.get(name):
            continue
        without = {k: v for k, v in outcome.settings.items() if k != name}
        other = by_settings.get(_key(without))
        if other is None or other.fingerprint is None:
            continue
        if other.fingerprint == outcome.fingerprint:
            outcome.no_effect, outcome.no_effect_of, outcome.same_as = True, name, other.name
            return
        compared.append((name, other))
    if compared:
        name, other = compared[-1]
        outcome.effect, outcome.effect_of = _changes(other, outcome), name
        outcome.compared_to = other.name


def rank(outcomes: Sequence[VariantOutcome], goal: Goal) -> list[VariantOutcome]:
    """``outcomes`` best first for ``goal``; those not compiled last, those that cannot apply
    after them."""
    inf = math.inf

    def key(o: VariantOutcome) -> tuple[Any, ...]:
        placed = (not o.applicable, not o.compiled)
        step = o.step_s if o.step_s is not None else inf
        peak = o.peak_bytes if o.peak_bytes is not None else inf
        if goal is Goal.MEMORY:
            return (*placed, peak, step)
        return (*placed, o.fits is not True, step, peak)

    return sorted(outcomes, key=key)


# ---- the SPMD partitioner's warnings ----------------------------------------------------------


def sharding_warnings(outcome: VariantOutcome) -> list[dict[str, Any]]:
    """What the compile of ``outcome`` warns of, one entry per place and kind
    (:mod:`~hloscope.analysis.variant_warnings`): the SPMD partitioner's and sharding
    propagation's log lines ("Involuntary full rematerialization": ``where``, the sharding it
    had, ``from``, the one it was needed in, ``to``, both also as specs on the variant's mesh,
    else the script's own, and ``count``; GSPMD's deprecation), each
    op placed with the help of its optimized module's frame table, then, from that module, the
    large arrays replicated on every device and the collectives in loop bodies."""
    from .variant_warnings import log_warnings, read_module, read_module_warnings

    module = read_module(outcome.module_file) if outcome.module_file else None
    spec_mesh = outcome.mesh or outcome.argument_mesh  # the mesh the compile placed arrays on
    out = log_warnings(outcome.log, module, spec_mesh, outcome.argument_axes)
    if outcome.compiled and outcome.module_file:
        mesh = tuple(sorted((outcome.mesh or {}).items()))
        names = tuple(outcome.argument_axes)  # the script's own mesh, where it has no other
        out += [dict(w) for w in read_module_warnings(outcome.module_file, mesh, names)]
    return out


def _changes(without: VariantOutcome, with_: VariantOutcome) -> str:
    from ..units import format_bytes, format_count, format_duration

    parts = []
    figures = (
        ("peak", "peak_bytes", format_bytes),
        ("FLOPs", "flops", format_count),
        ("HBM", "hbm_bytes", format_bytes),
        ("collectives", "collective_bytes", format_bytes),
        ("step", "step_s", format_duration),
    )
    for label, attribute, say in figures:
        before, after = getattr(without, attribute), getattr(with_, attribute)
        if before is not None and after is not None and before != after:
            if say(before) == say(after):  # too close for the short form: the numbers
                parts.append(f"{label} {before:,} -> {after:,}")
            else:
                parts.append(f"{label} {say(before)} -> {say(after)}")
    return "; ".join(parts) or "the same figures, another schedule"


# ---- the change to make ---------------------------------------------------------------------


def code_change(outcome: VariantOutcome, target: str) -> list[str]:
    """The lines of code that give ``outcome``'s program (nothing to change: one line saying
    so)."""
    settings = outcome.settings
    if not any(settings.get(k) for k in SETTING_KEYS):
        return ["keep the program as it is (no variant did better)"]
    function = target.rpartition(":")[2] or "step"
    lines: list[str] = []
    mesh = outcome.mesh or settings.get("mesh")
    if mesh and (settings.get("shard") or settings.get("mesh")):
        shape, names = tuple(mesh.values()), tuple(mesh)
        lines.append(f"mesh = jax.make_mesh({shape!r}, {names!r})")
    if settings.get("shard") and outcome.placement:
        lines.append("# each argument placed with NamedSharding(mesh, spec):")
        for spec, paths in _specs(outcome.placement).items():
            shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
            lines.append(f"#   {spec}: {shown}")
    elif settings.get("mesh"):
        lines.append("# the arguments' NamedShardings on this mesh, their specs unchanged")
    remat = settings.get("remat")
    if remat:
        from ..backends.remat_policy import parse_policy, split_target

        policy, name = split_target(str(remat))
        wrapped = name or function
        lines.append(
            f"{wrapped} = jax.checkpoint({wrapped}, policy={parse_policy(policy).python()})"
        )
    jit_options = []
    if settings.get("donate"):
        jit_options.append(f"donate_argnames={tuple(settings['donate'])!r}")
    if jit_options:
        lines.append(f"{function} = jax.jit({function}, {', '.join(jit_options)})")
    for name, dtype in (settings.get("cast") or {}).items():
        lines.append(f"{name} = jax.tree.map(lambda a: a.astype(jnp.{_dtype(dtype)}), {name})")
    if settings.get("flags"):
        lines.append(f"LIBTPU_INIT_ARGS='{' '.join(settings['flags'])}' (before jax starts)")
    return lines


def _dtype(name: str) -> str:
    return {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}.get(name, name)


def _specs(placement: Sequence[Mapping[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in placement:
        out.setdefault(row["spec"], []).append(row["path"])
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "P()", kv[0])))
