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
per kernel. It is measured on a module that does next to nothing (a copy of one float) with the
same harness, and taken off each kernel's median (never below zero), so that the sum over the
kernels compares with the program's own time; both the raw median and the launch time are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.hbm import kernel_roof_bytes
from ..analysis.peaks import DevicePeak
from ..analysis.roofline import Roofline, roofline
from ..errors import HloscopeError
from .compile import compile_text
from .extract import Skip, extract_kernel, kernel_instructions, runnable_text, skip_reason
from .inputs import spec_of_shape
from .timing import Timing, measure

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.fusions import Kernel
    from ..hlo.model import Module

__all__ = ["KernelTiming", "KernelRun", "time_kernels", "launch_overhead", "EMPTY_MODULE"]

#: The module whose time is the launch overhead: one float copied.
EMPTY_MODULE = """HloModule hloscope_launch, entry_computation_layout={(f32[1]{0})->f32[1]{0}}

ENTRY %main (p: f32[1]) -> f32[1] {
  %p = f32[1]{0} parameter(0)
  ROOT %copy = f32[1]{0} copy(%p)
}
"""

#: A kernel's median rests on at least this many runs (within its budget): a short kernel's
#: first few runs after compiling scatter widely.
KERNEL_MIN_RUNS = 20

#: ``progress(index, total, kernel name)`` while kernels are timed.
KernelProgress = Callable[[int, int, str], None]


@dataclass(slots=True)
class KernelTiming:
    """One kernel timed alone: its timing, cost, roofline and where it came from."""

    name: str
    kind: str
    where: str
    executions: int
    flops: int
    bytes: int
    source: str
    timing: Timing
    launch_s: float
    roofline: Roofline
    signature: str = ""
    compiled_kernels: int = 1  # how many kernels XLA made of it alone
    profile_s: float | None = None
    share: float = 0.0

    @property
    def median_s(self) -> float:
        """The median time of one execution, launch overhead taken off."""
        return max(0.0, self.timing.median_s - self.launch_s)

    @property
    def total_s(self) -> float:
        """Time per program run: one execution's time times the executions per run."""
        return self.median_s * self.executions

    def contract(self) -> dict[str, Any]:
        """The kernel's entry in the bench JSON."""
        bound = self.roofline.bound
        return {
            "name": self.name,
            "median_s": self.median_s,
            "share": self.share,
            "flops": self.flops,
            "bytes": self.bytes,
            "bound": bound.value if bound is not None else None,
            "source": self.source,
        }

    def row(self) -> dict[str, Any]:
        """Every column of the kernel (the DataFrame's row)."""
        t = self.timing
        r = self.roofline
        return {
            **self.contract(),
            "kind": self.kind,
            "where": self.where,
            "executions": self.executions,
            "total_s": self.total_s,
            "raw_median_s": t.median_s,
            "min_s": t.min_s,
            "p10_s": t.p10_s,
            "p90_s": t.p90_s,
            "spread": t.spread,
            "runs": t.runs,
            "launch_s": self.launch_s,
            "flops_per_s": self.flops / self.median_s if self.median_s > 0 else None,
            "bytes_per_s": self.bytes / self.median_s if self.median_s > 0 else None,
            "roofline_fraction": r.fraction,
            "signature": self.signature,
            "compiled_kernels": self.compiled_kernels,
            "profile_s": self.profile_s,
        }


@dataclass(slots=True)
class KernelRun:
    """What :func:`time_kernels` found: the timed kernels, the skipped ones, the launch."""

    kernels: list[KernelTiming] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    launch_s: float = 0.0


def launch_overhead(device: Any, *, budget: float, precision: float) -> float:
    """The median time of running :data:`EMPTY_MODULE` on ``device``."""
    from ..hlo.parser import parse

    entry = parse(EMPTY_MODULE).entry
    assert entry is not None, "EMPTY_MODULE has an ENTRY computation"
    specs = [spec_of_shape(0, "p", entry.parameters[0].shape)]
    compiled = compile_text(EMPTY_MODULE, specs, device, "hloscope_launch")
    work = compiled.workload()
    return measure(work.fn, work.args, precision=precision, budget=budget).median_s


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
    from ..analysis.roofline import element_type_of
    from ..capture.jaxlib_adapter import XlaCompileFailed, XlaParseFailed
    from ..hlo.errors import HloParseError
    from ..hlo.parser import parse
    from .inputs import UnfeedableModule

    report = fusion_report(module)
    rows: dict[str, Kernel] = {k.name: k for k in report.kernels}
    run = KernelRun(launch_s=launch_overhead(device, budget=budget, precision=precision))
    instructions = kernel_instructions(module)
    for index, inst in enumerate(instructions):
        if progress is not None:
            progress(index, len(instructions), inst.name)
        reason = skip_reason(inst)
        if reason is not None:
            run.skipped.append(Skip(inst.name, reason))
            continue
        try:
            extracted = extract_kernel(module, inst.name)
            text = runnable_text(parse(extracted.text))
            compiled = compile_text(text, extracted.parameters, device, inst.name)
            work = compiled.workload(seed=seed)
            timing = measure(
                work.fn,
                work.args,
                prepare=work.prepare,
                precision=precision,
                budget=budget,
                min_runs=KERNEL_MIN_RUNS,
            )
            made = _count_kernels(compiled.optimized_module())
        except (XlaCompileFailed, XlaParseFailed, HloParseError, UnfeedableModule) as error:
            run.skipped.append(Skip(inst.name, _xla_refusal(error)))
            continue
        except HloscopeError as error:  # KernelNotRunnable: an operand no array can stand for
            run.skipped.append(Skip(inst.name, getattr(error, "reason", error.one_line())))
            continue
        kernel = rows.get(inst.name)
        flops = kernel.cost.flops if kernel else 0
        nbytes = kernel_roof_bytes(kernel) if kernel else 0  # a TPU's: through HBM
        element = element_type_of(kernel.shape) if kernel else None
        choice = peak.choose(element) if peak is not None else None
        net = max(0.0, timing.median_s - run.launch_s)
        run.kernels.append(
            KernelTiming(
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
            )
        )
    if progress is not None:
        progress(len(instructions), len(instructions), "")
    total = sum(k.total_s for k in run.kernels)
    for k in run.kernels:
        k.share = k.total_s / total if total > 0 else 0.0
    return run
