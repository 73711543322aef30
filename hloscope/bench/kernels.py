"""Per-kernel microbenchmarks: every kernel of an optimized module, extracted, compiled, timed.

For each kernel of the module (each fusion, and each op outside fusions that does work, as
:func:`~hloscope.analysis.fusions.fusion_report` lists them): :func:`~.extract.skip_reason`
first (collectives and the like are listed as skipped, with the reason), then
:func:`~.extract.extract_kernel`, :func:`~.extract.runnable_text` and a compile for the device
through jaxlib, random inputs of the operands' shapes, dtypes and layouts, and
:func:`~.timing.measure` with a small budget of its own. A kernel XLA will not compile alone
is skipped with XLA's message.

Every run of a standalone kernel also pays a launch: the runtime's fixed cost of starting an
executable and handing back its result, which inside the whole program is paid once, not once
per kernel. It is measured on a module that does next to nothing (one float added to itself;
not a copy, which XLA's importer reduces to a module with no function at all, and XLA:TPU then
refuses to compile) with the same harness, and taken off each kernel's median, so that the sum
over the kernels compares with the program's own time; both the raw median and the launch time
are kept. A kernel whose median does not rise above the launch's by more than the launch's own
uncertainty (its median's 95% interval, and at least the clock's resolution) is *below
resolution*: it has no time (``median_s`` is ``None``), only an upper bound (``below_s``), and
never a time of 0 s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.hbm import kernel_roof_bytes
from ..analysis.peaks import DevicePeak
from ..analysis.roofline import roofline
from ..errors import HloscopeError
from ..json_fields import json_fields
from .compile import compile_text
from .extract import Skip, extract_kernel, kernel_instructions, runnable_text, skip_reason
from .inputs import spec_of_shape
from .kernel_contract import TimedKernel, kernel_contract
from .timing import Timing, measure

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.fusions import Kernel
    from ..hlo.model import Instruction, Module

__all__ = [
    "KernelTiming",
    "KernelRun",
    "time_kernels",
    "launch_overhead",
    "launch_timing",
    "resolution_floor",
    "EMPTY_MODULE",
]

#: The module whose time is the launch overhead: one float added to itself (a real computation:
#: a lone copy of a parameter imports as an empty module, which XLA:TPU refuses).
EMPTY_MODULE = """HloModule hloscope_launch, entry_computation_layout={(f32[1]{0})->f32[1]{0}}

ENTRY %main (p: f32[1]) -> f32[1] {
  %p = f32[1]{0} parameter(0)
  ROOT %add = f32[1]{0} add(%p, %p)
}
"""

#: A kernel's median rests on at least this many runs (within its budget): a short kernel's
#: first few runs after compiling scatter widely.
KERNEL_MIN_RUNS = 20

#: ``progress(index, total, kernel name)`` while kernels are timed.
KernelProgress = Callable[[int, int, str], None]


@dataclass(slots=True, kw_only=True)
class KernelTiming(TimedKernel):
    """One kernel timed alone: its timing, cost, roofline and where it came from."""

    executions: int
    timing: Timing
    launch_s: float
    signature: str = ""
    compiled_kernels: int = 1  # how many kernels XLA made of it alone
    profile_s: float | None = None
    floor_s: float = 0.0  # the least net time told apart from the launch's noise

    @property
    def measurable(self) -> bool:
        """Whether the kernel's median rose above the launch's by more than its noise."""
        return self.timing.median_s - self.launch_s > self.floor_s

    @property
    def median_s(self) -> float | None:
        """The median time of one execution, launch overhead taken off; ``None`` below
        resolution (see :attr:`below_s`)."""
        return self.timing.median_s - self.launch_s if self.measurable else None

    @property
    def below_s(self) -> float | None:
        """For a kernel below resolution, the time it is known to be under; else ``None``."""
        return None if self.measurable else max(self.floor_s, self.timing.median_s - self.launch_s)

    @property
    def total_s(self) -> float:
        """Time per program run: one execution's time times the executions per run (0 for a
        kernel below resolution, which :attr:`below_s` bounds)."""
        return (self.median_s or 0.0) * self.executions

    def contract(self) -> dict[str, Any]:
        """The kernel's entry in the bench JSON."""
        each = self.median_s
        return kernel_contract(
            self,
            time_s=self.total_s if self.measurable else None,
            executions=self.executions,
            rates=(self.flops / each, self.bytes / each) if each else (None, None),
            timed="alone",
            asynchronous=False,  # async ops are not timed alone (extract.skip_reason)
        )

    def row(self) -> dict[str, Any]:
        """Every column of the kernel (the DataFrame's row)."""
        return {
            **self.contract(),
            **json_fields(self, "kind where total_s"),
            **json_fields(self.timing, "raw_median_s=median_s min_s p10_s p90_s spread runs"),
            **json_fields(self, "launch_s signature compiled_kernels profile_s"),
        }


@dataclass(slots=True)
class KernelRun:
    """What :func:`time_kernels` found: the timed kernels, the skipped ones, the launch."""

    kernels: list[KernelTiming] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    launch_s: float = 0.0
    floor_s: float = 0.0


def resolution_floor(launch: Timing) -> float:
    """The least net time a kernel must show above the launch to count as measured: half the
    width of the launch median's 95% interval, and at least the clock's resolution."""
    import math
    import time

    clock = time.get_clock_info("perf_counter").resolution
    noise = launch.precision * launch.median_s if math.isfinite(launch.precision) else 0.0
    return max(clock, noise)


def launch_overhead(device: Any, *, budget: float, precision: float) -> float:
    """The median time of running :data:`EMPTY_MODULE` on ``device``."""
    return launch_timing(device, budget=budget, precision=precision).median_s


def launch_timing(device: Any, *, budget: float, precision: float) -> Timing:
    """The :class:`Timing` of running :data:`EMPTY_MODULE` on ``device``."""
    from ..hlo.parser import parse

    entry = parse(EMPTY_MODULE).entry
    assert entry is not None, "EMPTY_MODULE has an ENTRY computation"
    specs = [spec_of_shape(0, "p", entry.parameters[0].shape)]
    compiled = compile_text(EMPTY_MODULE, specs, device, "hloscope_launch")
    work = compiled.workload()
    return measure(work.fn, work.args, precision=precision, budget=budget, min_runs=20)


def _count_kernels(module: Module) -> int:
    return max(1, len(kernel_instructions(module)))


def _xla_refusal(error: HloscopeError) -> str:
    return f"XLA cannot compile it alone: {error.one_line()}"


def time_kernels(
    module: Module,
    device: Any,
    *,
    budget: float,
    precision: float,
    peak: DevicePeak | None = None,
    seed: int = 0,
    progress: KernelProgress | None = None,
) -> KernelRun:
    """Time every kernel of ``module`` alone on ``device`` (see the module docstring);
    ``budget`` is each kernel's."""
    from ..analysis.fusions import fusion_report

    report = fusion_report(module)
    rows: dict[str, Kernel] = {k.name: k for k in report.kernels}
    launch = launch_timing(device, budget=budget, precision=precision)
    run = KernelRun(launch_s=launch.median_s, floor_s=resolution_floor(launch))
    instructions = kernel_instructions(module)
    for index, inst in enumerate(instructions):
        if progress is not None:
            progress(index, len(instructions), inst.name)
        reason = skip_reason(inst)
        if reason is not None:
            run.skipped.append(Skip(inst.name, reason))
            continue
        timed = _time_alone(module, inst.name, device, seed, budget, precision)
        if isinstance(timed, Skip):
            run.skipped.append(timed)
            continue
        run.kernels.append(_kernel_timing(inst, rows.get(inst.name), *timed, run, peak))
    if progress is not None:
        progress(len(instructions), len(instructions), "")
    total = sum(k.total_s for k in run.kernels)
    for k in run.kernels:
        k.share = k.total_s / total if total > 0 else 0.0
    return run


def _time_alone(
    module: Module, name: str, device: Any, seed: int, budget: float, precision: float
) -> tuple[Timing, int] | Skip:
    """The timing of kernel ``name`` extracted and compiled alone, and how many kernels XLA
    made of it; or why it could not run."""
    from ..backends.errors import XlaCompileFailed, XlaParseFailed
    from ..hlo.errors import HloParseError
    from ..hlo.parser import parse
    from .inputs import UnfeedableModule

    try:
        extracted = extract_kernel(module, name)
        text = runnable_text(parse(extracted.text))
        compiled = compile_text(text, extracted.parameters, device, name)
        work = compiled.workload(seed=seed)
        timing = measure(
            work.fn,
            work.args,
            prepare=work.prepare,
            precision=precision,
            budget=budget,
            min_runs=KERNEL_MIN_RUNS,
        )
        return timing, _count_kernels(compiled.optimized_module())
    except (XlaCompileFailed, XlaParseFailed, HloParseError, UnfeedableModule) as error:
        return Skip(name, _xla_refusal(error))
    except HloscopeError as error:  # KernelNotRunnable: an operand no array can stand for
        return Skip(name, getattr(error, "reason", error.one_line()))


def _kernel_timing(
    inst: Instruction,
    kernel: Kernel | None,
    timing: Timing,
    made: int,
    run: KernelRun,
    peak: DevicePeak | None,
) -> KernelTiming:
    """One kernel's row: its timing, its cost from the module's report, its roofline."""
    from ..analysis.roofline import element_type_of

    flops = kernel.cost.flops if kernel else 0
    nbytes = kernel_roof_bytes(kernel) if kernel else 0  # a TPU's: through HBM
    element = element_type_of(kernel.shape) if kernel else None
    choice = peak.choose(element) if peak is not None else None
    net = timing.median_s - run.launch_s
    net = net if net > run.floor_s else 0.0  # below resolution: no rate, no position
    return KernelTiming(
        name=inst.name,
        kind=(kernel.kind if kernel else inst.opcode),
        where=(kernel.where if kernel else ""),
        executions=(kernel.executions if kernel else 1),
        flops=flops,
        bytes=nbytes,
        source=(kernel.source if kernel else ""),
        timing=timing,
        launch_s=run.launch_s,
        roofline=roofline(flops, nbytes, net, choice),
        signature=(kernel.signature if kernel else inst.opcode),
        compiled_kernels=made,
        floor_s=run.floor_s,
    )
