"""How a compile's time grows: a ``SCRIPT.py:FUNCTION`` compiled at three sizes, the growth of
the total and of each stage fitted through two of them and checked at the third, and the time
predicted at the size the user names (``compile-time --scale``, ``--slices``).

What grows is one of:

* an argument's dimension (``--scale x:0``) or a size the script's example arguments are built
  from (``--scale layers``): :mod:`hloscope.capture.scaled_arguments`. Default sizes: the
  example's own ``n``, ``2n`` (fitted) and ``3n`` (the check, past both, as a prediction is);
* the chips of a TPU slice (``--slices 2x2,2x4``): the same function compiled for each slice
  of ``--device``'s chip, fitted against the chip count. With two slices the check is a slice
  of half the smaller one's chips.

Each compile is a capture (:meth:`hloscope.capture.target.Target.resolve`, cached as any
``SCRIPT.py:FUNCTION``) and its times are :func:`~.compile_time.compile_time_of_capture`'s. The
fits are :mod:`.compile_growth_fit`'s: a prediction is an estimate, and the fit's error on the
check compile is how far it held on a size it was not fitted to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.compile_growth_fit import GrowthFit, fit_growth
from ..analysis.compile_time import STAGE_PARTS
from ..analysis.errors import CompileTimeError
from ..errors import UsageProblem

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.target import Target

__all__ = [
    "GrowthPoint",
    "CompileGrowth",
    "GrowthPlan",
    "plan_scale",
    "plan_slices",
    "compile_growth",
]

#: Multiples of the example's own size: two fitted, then the check.
DEFAULT_FACTORS = (1, 2, 3)


@dataclass(frozen=True, slots=True)
class _Compile:
    """One compile to make: its label, the device and the scale text the capture gets."""

    label: str
    device: str | None
    scale: str | None
    size: int | None  # known before compiling (sizes given, chips); else read from the capture


@dataclass(frozen=True, slots=True)
class GrowthPlan:
    """The three compiles (two fitted, then the check) and what the size is."""

    what: str  # "x:0", "layers", "chips"
    compiles: tuple[_Compile, ...]  # three
    at: int | None
    at_label: str | None


@dataclass(slots=True)
class GrowthPoint:
    """One compile's size and times."""

    label: str
    size: int
    total_s: float
    stages: dict[str, float | None]
    compiled_for: str | None
    cached: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "size": self.size,
            "total_s": self.total_s,
            "stages": self.stages,
            "compiled_for": self.compiled_for,
            "cached": self.cached,
        }


@dataclass(slots=True)
class CompileGrowth:
    """The compiles, the fits of the total and of each stage, and the prediction."""

    target: str
    what: str
    device: str | None
    points: list[GrowthPoint]  # the two fitted, then the check
    total: GrowthFit
    stages: dict[str, GrowthFit]
    at: int | None
    at_label: str | None
    notes: list[str] = field(default_factory=list)

    @property
    def predicted_at_s(self) -> float | None:
        return None if self.at is None else self.total.chosen.at(self.at)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "scale": self.what,
            "device": self.device,
            "sizes": [p.size for p in self.points],
            "points": [p.to_dict() for p in self.points],
            "fitted_sizes": [p.size for p in self.points[:2]],
            "check_size": self.points[2].size,
            "total": self.total.to_dict(self.at),
            "stages": {name: fit.to_dict(self.at) for name, fit in self.stages.items()},
            "at": None if self.at is None else {"size": self.at, "label": self.at_label},
            "predicted_at_s": self.predicted_at_s,
            "notes": self.notes,
        }


# ---- plans ----------------------------------------------------------------------------------


def _parse_at(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageProblem(f"--at {text!r}: give a positive whole size (e.g. --at 64)")
    return int(text)


def _parse_sizes(text: str) -> tuple[int, int, int]:
    values = [v.strip() for v in text.split(",")]
    if len(values) != 3 or not all(v.isdigit() and int(v) > 0 for v in values):
        raise UsageProblem(
            f"--sizes {text!r}: give three positive sizes, two to fit and one to check (8,16,32)"
        )
    a, b, c = (int(v) for v in values)
    if a == b:
        raise UsageProblem(f"--sizes {text!r}: the two fitting sizes must differ")
    return a, b, c


def plan_scale(scale: str, sizes: str | None, at: str | None, device: str | None) -> GrowthPlan:
    """The compiles of ``--scale ARG:DIM`` or ``--scale NAME`` (``sizes``: ``"8,16,32"``;
    default the example's ``n``, ``2n``, ``3n``)."""
    from ..capture.scaled_arguments import ArgumentScale

    what = str(ArgumentScale.parse(scale))
    if sizes is not None:
        chosen = _parse_sizes(sizes)
        compiles = tuple(_Compile(str(s), device, f"{what}={s}", s) for s in chosen)
    else:
        compiles = tuple(_Compile(f"{f}n", device, f"{what}*{f}", None) for f in DEFAULT_FACTORS)
    at_size = _parse_at(at)
    return GrowthPlan(what, compiles, at_size, None if at is None else str(at_size))


def _slice_text(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape)


def _half(shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """A slice of half the chips: the largest side halved (``None`` for one chip)."""
    largest = max(range(len(shape)), key=lambda i: (shape[i], i))
    if shape[largest] < 2:
        return None
    return tuple(d // 2 if i == largest else d for i, d in enumerate(shape))


def plan_slices(slices: str, at: str | None, device: str | None) -> GrowthPlan:
    """The compiles of ``--slices 2x2,2x4[,CHECK]`` on ``device``'s chip, and ``--at 4x4``."""
    from ..devices import parse_device

    if device is None:
        raise UsageProblem("--slices compiles for a TPU's slices: give --device (tpu-v5e)")
    chip = parse_device(device).device.name

    def spec(text: str) -> Any:
        found = parse_device(f"{chip}:{text.strip()}")
        if found.slice is None:
            raise UsageProblem(f"--slices {slices!r}: {text!r} is not a slice shape (2x4)")
        return found

    specs = [spec(s) for s in slices.split(",") if s.strip()]
    if len(specs) not in (2, 3):
        raise UsageProblem(
            f"--slices {slices!r}: give two slices to fit (2x2,2x4) and optionally a third to check"
        )
    if specs[0].chips == specs[1].chips:
        raise UsageProblem(f"--slices {slices!r}: the two fitting slices must differ in chips")
    if len(specs) == 2:
        smaller = min(specs[:2], key=lambda s: s.chips)
        half = _half(tuple(smaller.slice))
        if half is None:
            raise UsageProblem(f"--slices {slices!r}: give a third slice to check the fit")
        specs.append(spec(_slice_text(half)))
    compiles = tuple(_Compile(str(s), str(s), None, s.chips) for s in specs)
    at_size = None
    if at is not None:
        at_size = spec(at).chips
    return GrowthPlan("chips", compiles, at_size, None if at is None else f"{chip}:{at}")


# ---- compiling ------------------------------------------------------------------------------


def _compile_once(target: str, step: _Compile, refresh: bool) -> GrowthPoint:
    from ..analysis.compile_time import compile_time_of_capture
    from ..backends.record import Capture
    from ..capture.target import Target

    opened = Target.resolve(
        target, device=step.device, scale=step.scale, refresh=refresh, progress=False
    )
    if opened.from_cache and Capture.read_index(opened.path).get("compile_time") is None:
        opened = Target.resolve(
            target, device=step.device, scale=step.scale, refresh=True, progress=False
        )
    report = compile_time_of_capture(opened.capture())
    if report.total_s is None:
        raise CompileTimeError(f"{target} at {step.label}: the compile reported no total time")
    stages = report.stages.to_dict()
    return GrowthPoint(
        label=step.label,
        size=step.size if step.size is not None else _scaled_size(opened),
        total_s=report.total_s,
        stages={name: stages.get(name) for name in STAGE_PARTS},
        compiled_for=report.compiled_for,
        cached=opened.from_cache,
    )


def _scaled_size(opened: Target) -> int:
    scaled = (opened.manifest or {}).get("scaled") or {}
    size = scaled.get("size")
    if not isinstance(size, int):
        raise CompileTimeError(f"{opened.spec}: the capture did not say the size it compiled")
    return size


def compile_growth(
    target: str,
    plan: GrowthPlan,
    *,
    refresh: bool = False,
    repeat: int = 1,
    on_compile: Callable[[int, str], object] | None = None,
    on_done: Callable[[GrowthPoint], object] | None = None,
) -> CompileGrowth:
    """Compile ``target`` (``SCRIPT.py:FUNCTION``) as ``plan`` says and fit the growth.
    ``on_compile(i, label)`` is called before each size, ``on_done(point)`` after it;
    ``repeat`` compiles each size that many times (in turn) and keeps the fastest."""
    points = _fastest_points(target, plan, refresh, repeat, on_compile, on_done)
    first, second, check = points
    if first.size == second.size:
        raise CompileTimeError(
            f"{target}: the two fitting compiles have the same size ({first.size}): give --sizes"
        )
    total = fit_growth(
        (first.size, first.total_s), (second.size, second.total_s), (check.size, check.total_s)
    )
    stages = _stage_fits(points)
    notes = []
    if any(p.cached for p in points):
        notes.append(
            "some times were measured when those captures were made (cached; --refresh "
            "measures again)"
        )
    return CompileGrowth(
        target=target,
        what=plan.what,
        device=plan.compiles[0].device,
        points=points,
        total=total,
        stages=stages,
        at=plan.at,
        at_label=plan.at_label,
        notes=notes,
    )


def _fastest_points(
    target: str,
    plan: GrowthPlan,
    refresh: bool,
    repeat: int,
    on_compile: Callable[[int, str], object] | None,
    on_done: Callable[[GrowthPoint], object] | None,
) -> list[GrowthPoint]:
    """Each size of ``plan`` compiled ``repeat`` times, its fastest compile kept."""
    # With ``repeat``, the sizes are compiled in turn, round after round (each compile in a
    # fresh child), and each size keeps its fastest: a spell of load on a busy machine then
    # slows every size's compile alike instead of one size's, and load only ever slows one.
    best: list[GrowthPoint | None] = [None] * len(plan.compiles)
    for round_ in range(repeat):
        for i, step in enumerate(plan.compiles):
            if on_compile is not None:
                on_compile(i, step.label)
            point = _compile_once(target, step, refresh or round_ > 0)
            kept = best[i]
            if kept is None or point.total_s < kept.total_s:
                best[i] = point
            if on_done is not None:
                on_done(point)
    return [p for p in best if p is not None]


def _stage_fits(points: list[GrowthPoint]) -> dict[str, GrowthFit]:
    """Each stage's growth fitted as the total's, where the three compiles all timed it."""
    first, second, check = points
    stages: dict[str, GrowthFit] = {}
    for name in STAGE_PARTS:
        values = [p.stages.get(name) for p in points]
        if all(v is not None and math.isfinite(v) for v in values):
            a, b, c = (float(v) for v in values if v is not None)
            stages[name] = fit_growth((first.size, a), (second.size, b), (check.size, c))
    return stages
