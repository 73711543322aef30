"""The report's sections beyond the summary and kernel table, each gathered from its origin.

Each function takes the report's :class:`~hloscope.reporting._origins.Origin`, which says
where the data of its kind of subject is (a capture, a dump folder, the files beside an HLO
file), runs the analysis, and hands the result to :mod:`hloscope.render.html.sections`, which
only shapes it for the page. ``build_report`` calls them through this module's namespace, so
a test can replace one.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import TYPE_CHECKING

from ..analysis.report_hints import recompiled_functions
from ..errors import HloscopeError
from ..render.html import sections

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.recompiles import Ledger
    from ..devices import DeviceSpec
    from ..render.html.bench_section import BenchSection
    from ..render.html.collectives_section import CollectivesSection
    from ..render.html.compile_time_section import CompileTimeSection
    from ..render.html.memory_section import MemorySection
    from ..render.html.profile_section import ProfileSection
    from ..render.html.sections import Explained, Recompiles, Timeline
    from ._origins import Origin

__all__ = [
    "explained",
    "memory",
    "collectives",
    "timeline",
    "compile_time_of",
    "recompiles",
    "recompiles_section",
    "bench_of",
    "profile_of",
    "BENCH_BUDGET_S",
    "BENCH_KERNEL_BUDGET_S",
]

#: Seconds of timed runs for the program, and for each kernel alone (``--bench``).
BENCH_BUDGET_S = 2.0
BENCH_KERNEL_BUDGET_S = 0.05


def optional_module(name: str) -> ModuleType | None:
    """The module ``name``, or ``None`` when it is not installed (another part of hloscope
    that a report uses when it is there)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and name.startswith(error.name):
            return None
        raise


def explained(origin: Origin) -> Explained | None:
    """Per source line, the jaxpr equations, StableHLO ops and HLO instructions it made, from
    :func:`hloscope.drivers.explain.explain` (``None`` when that module is absent or the
    origin has no stage before optimization to link).

    An HLO file ``X.after_optimizations.txt`` with its ``X.before_optimizations.txt`` beside
    it (as in ``samples/hlo``) is explained with both."""
    explain = optional_module("hloscope.drivers.explain")
    if explain is None:
        return None
    result = origin.explanation(explain)
    return sections.explained_from(result) if result is not None else None


def memory(origin: Origin) -> MemorySection:
    """The memory section of the report's module: the same result ``hloscope memory`` gives
    for the target (XLA's buffer assignment and live range from a dump's side files or a
    capture, else the simulation of the module text, which the section says it is)."""
    from ..render.html.memory_section import memory_section

    return memory_section(origin.memory())


def collectives(
    origin: Origin, device: str | DeviceSpec | None = None
) -> CollectivesSection | None:
    """The collectives section, ``None`` for a module without collectives: the collectives
    priced on ``device`` when given, and the step on every device of the registry with
    interconnect figures (the module's own groups on each: which chips would run this
    sharding best)."""
    from ..analysis.collectives import interconnect_devices
    from ..analysis.step_estimate import communication_of, has_collectives
    from ..render.html.collectives_section import collectives_section

    module = origin.module
    if not has_collectives(module):
        return None
    shown = communication_of(module, device)
    steps = []
    chosen = shown.result.device["name"] if shown.result.device is not None else None
    for row in interconnect_devices():
        topology = row.interconnect.topology if row.interconnect is not None else ""
        step = (shown if row.name == chosen else communication_of(module, row)).step
        if step is not None:
            steps.append({**step.to_dict(), "topology": topology})
    return collectives_section(shown.result, steps)


def timeline(origin: Origin) -> Timeline | None:
    """The pass timeline of the report's module (:func:`hloscope.analysis.passes.
    pass_timeline`): a capture's per-pass snapshots, or those of the dump module of the same
    name. ``None`` when there are none (or :mod:`hloscope.analysis.passes` is absent)."""
    passes = optional_module("hloscope.analysis.passes")
    if passes is None:
        return None
    subject = origin.pass_subject()
    if subject is None:
        return None
    return sections.timeline_from(passes.pass_timeline(subject))


def compile_time_of(origin: Origin) -> CompileTimeSection | None:
    """Where the module's compile time went (:mod:`hloscope.analysis.compile_time`): of a
    capture that kept its times, or a dump with XLA's pass times; ``None`` when nothing of
    the compile was timed."""
    from ..render.html.compile_time_section import compile_time_section

    found = origin.compile_time()
    return compile_time_section(found) if found is not None else None


def recompiles(origin: Origin) -> Ledger | None:
    """The recompiles ledger of a dump folder (or a file of several modules); ``None`` for a
    subject of one compile."""
    return origin.ledger()


def recompiles_section(ledger: Ledger | None) -> Recompiles | None:
    """The functions of the ledger that compiled more than once, with each compile's causes
    and the advice; ``None`` when none did."""
    if ledger is None:
        return None
    return sections.recompiles_from(ledger, recompiled_functions(ledger))


def bench_of(origin: Origin) -> BenchSection:
    """The program and each of its kernels timed on the device JAX sees
    (:func:`hloscope.bench.api.bench` with ``per_kernel``), only with ``--bench``."""
    from ..render.html.bench_section import bench_section

    api = optional_module("hloscope.bench.api")
    if api is None:
        raise HloscopeError("hloscope.bench is not available in this installation")
    subject, options = origin.bench_subject()
    result = api.bench(
        subject,
        per_kernel=True,
        budget=BENCH_BUDGET_S,
        kernel_budget=BENCH_KERNEL_BUDGET_S,
        **options,
    )
    return bench_section(result.to_dict(), result.kernel_rows(), result.notes)


def profile_of(
    origin: Origin, trace: str | os.PathLike[str], device: str | DeviceSpec | None = None
) -> ProfileSection:
    """The op profile of ``trace`` joined to the report's module (a trace of another module is
    refused, and the page says so in its notes)."""
    from ..analysis.op_profile import op_profile, read_trace
    from ..devices import parse_device
    from ..render.html.profile_section import profile_section

    chip = parse_device(device).device if device is not None else None
    return profile_section(op_profile(read_trace(trace), origin.module, device=chip))
