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

from typing import Any

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
from ._api import check, diff, fusion_report, fusions
from . import bench as _bench_package  # noqa: F401 - see bench() below
from .render.html.notebook import install as _install_notebook_views

_install_notebook_views()  # _repr_html_ for Capture, FusionReport, KernelDiff (Jupyter)

# Loaded on first use: importing them all costs a third of a second (numpy, networkx, jinja2),
# which every command-line call would pay. ``hloscope.NAME`` and ``from hloscope import NAME``
# both work (PEP 562).
_LAZY = {
    "ErrorExplanation": "analysis.unsupported.error_text",
    "explain_error": "analysis.unsupported.error_text",
    "SourcedCapture": "capture.jaxpr_lines",
    "capture_with_sources": "capture.jaxpr_lines",
    "Explanation": "analysis.explain",
    "explain": "_api",  # the analysis, with a function target's jaxpr lines (as the CLI)
    "PassTimeline": "analysis.passes",
    "pass_timeline": "analysis.passes",
    "Cause": "analysis.recompiles",
    "CompileWatch": "analysis.recompiles",
    "Ledger": "analysis.recompiles",
    "ledger_of_dump": "analysis.recompiles",
    "ledger_of_target": "analysis.recompiles",
    "recompiles_of_script": "analysis.recompiles",
    "watch_compiles": "analysis.recompiles",
    "BenchComparison": "bench.api",
    "BenchResult": "bench.api",
    "Report": "render.html.report",
    "build_report": "render.html.report",
    "write_report": "render.html.report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hloscope' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def bench(target: Any, *args: Any, **options: Any) -> Any:
    """Compile and time ``target`` on the default JAX device: see
    :func:`hloscope.bench.api.bench` (a ``BenchResult``, or a ``BenchComparison`` with
    ``vs=``). A function here, not the subpackage: the subpackage was imported above, so
    importing its modules later does not rebind ``hloscope.bench``."""
    from .bench.api import bench as run

    return run(target, *args, **options)


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
