"""hloscope: see what XLA does to your code.

The public API, in the order data flows through it::

    module = hloscope.parse("model.after_optimizations.txt")     # the HLO language
    dump = hloscope.load_dump("/tmp/xla_dump")                    # XLA dump folders
    cap = hloscope.capture(jax_fn, x)                             # producing HLO
    target = hloscope.Target.resolve("train.py:step")             # TARGET strings -> modules
    hloscope.fusions(target)                                      # analyses
    hloscope.diff("before.txt", "after.txt")
    hloscope.check(step, x, platform="tpu")                       # will it compile there?
    hloscope.explain_error(log_text)                              # ... and why it did not
    with hloscope.watch_compiles() as w: train()                  # who recompiled, and why
    hloscope.explain("train.py:step"); hloscope.pass_timeline(cap)  # teaching: lines, passes
    hloscope.bench(target, per_kernel=True)                       # time it, kernel by kernel
    hloscope.build_report(target).write("report.html")            # all of it, one HTML page

The offline API (parsing, dump folders, analyses) never imports jax or tensorflow; capture
functions import them only when called (``pip install 'hloscope[jax]'`` or ``[tf]``). Every
error hloscope raises on purpose derives from :class:`HloscopeError`.
"""

from ._version import __version__
from .errors import HloscopeError
from .stages import Stage
from .hlo import (
    Computation,
    HloParseError,
    Instruction,
    Layout,
    Metadata,
    Module,
    Shape,
    StackFrame,
    parse,
    parse_modules,
    parse_shape,
)
from .dump import DumpFormatError, DumpIndex, PassDump, load_dump
from .dump.passes import PassStep
from .capture.errors import CaptureError
from .capture.inprocess import Capture, PassSnapshot, capture
from .capture.target import ModuleChoice, Target, TargetError, TargetKind
from .analysis.cost import module_cost
from .analysis.diff import KernelDiff
from .analysis.unsupported import CheckReport, Finding
from .analysis.unsupported.error_text import ErrorExplanation, explain_error
from .capture.jaxpr_lines import SourcedCapture, capture_with_sources
from .analysis.explain import Explanation, explain
from .analysis.passes import PassTimeline, pass_timeline
from .analysis.recompiles import (
    Cause,
    CompileWatch,
    Ledger,
    ledger_of_dump,
    ledger_of_target,
    recompiles_of_script,
    watch_compiles,
)
from ._api import check, diff, fusion_report, fusions
from .bench.api import BenchComparison, BenchResult, bench
from .render.html.notebook import install as _install_notebook_views
from .render.html.report import Report, build_report, write_report

_install_notebook_views()  # _repr_html_ for Capture, FusionReport, KernelDiff (Jupyter)

__all__ = [
    "__version__",
    "HloscopeError",
    "Stage",
    "HloParseError",
    "Module",
    "Computation",
    "Instruction",
    "Metadata",
    "StackFrame",
    "Shape",
    "Layout",
    "parse",
    "parse_modules",
    "parse_shape",
    "load_dump",
    "DumpIndex",
    "DumpFormatError",
    "PassDump",
    "PassStep",
    "capture",
    "Capture",
    "PassSnapshot",
    "CaptureError",
    "Target",
    "TargetKind",
    "TargetError",
    "ModuleChoice",
    "module_cost",
    "fusion_report",
    "fusions",
    "diff",
    "KernelDiff",
    "check",
    "CheckReport",
    "Finding",
    "explain_error",
    "ErrorExplanation",
    "watch_compiles",
    "CompileWatch",
    "Ledger",
    "Cause",
    "recompiles_of_script",
    "ledger_of_dump",
    "ledger_of_target",
    "explain",
    "Explanation",
    "pass_timeline",
    "PassTimeline",
    "capture_with_sources",
    "SourcedCapture",
    "Report",
    "build_report",
    "write_report",
    "bench",
    "BenchResult",
    "BenchComparison",
]
