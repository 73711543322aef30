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
    hloscope.benchmark(target, per_kernel=True)                   # time it, kernel by kernel
    hloscope.compare("a.py:f", "b.py:f").verdict                  # ... and against another
    hloscope.build_report(target).write("report.html")            # all of it, one HTML page

The offline API (parsing, dump folders, analyses) never imports jax or tensorflow; capture
functions import them only when called (``pip install 'hloscope[jax]'`` or ``[tf]``). Every
error hloscope raises on purpose derives from :class:`HloscopeError`.
"""

from __future__ import annotations

import importlib

# Not `from typing import TYPE_CHECKING`: every command imports this package first, and typing
# (with what it imports) costs a fresh interpreter ~5 ms before any work can start.
TYPE_CHECKING = False

from .after_import import after_import
from .errors import HloscopeError
from .lazy_exports import lazy_exports
from .stages import Stage
from . import bench as bench  # the package; benchmark() and compare() are its entry points
from . import capture as _capture_package  # noqa: F401 - see capture() below
from . import fleet as _fleet_package  # noqa: F401 - see fleet() below

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    import pandas

    from .bench.api import BenchResult

# Every other name loads on first use (PEP 562: ``hloscope.NAME`` and ``from hloscope import
# NAME`` both work): importing them all (the parser, the analyses, numpy, networkx, jinja2)
# is start-up time that every command-line call and every watched script would pay.
__getattr__, __dir__, _LAZY_NAMES = lazy_exports(
    __name__,
    globals(),
    {
        # Read from the installed metadata, only when asked: importlib.metadata is slow.
        "._version": ("__version__",),
        ".hlo": (
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
        ),
        ".dump": ("load_dump", "DumpIndex", "DumpFormatError", "PassDump"),
        ".dump.passes": ("PassStep",),
        ".backends.record": ("Capture", "PassSnapshot"),
        ".capture.errors": ("CaptureError",),
        ".capture.target": ("Target", "TargetKind", "TargetError", "ModuleChoice"),
        ".analysis.cost": ("module_cost",),
        # The analyses on a TARGET (resolved to modules first).
        "._api": ("fusion_report", "fusions", "collectives", "diff", "check"),
        ".analysis.collectives": ("CollectivesResult",),
        ".analysis.diff": ("KernelDiff",),
        ".analysis.unsupported": ("CheckReport", "Finding"),
        ".drivers.memory": ("memory",),
        ".analysis.explain_error": ("explain_error", "ErrorExplanation"),
        ".drivers.compile_watch": ("watch_compiles", "CompileWatch"),
        ".analysis.recompiles": ("Ledger", "Cause", "ledger_of_dump"),
        ".drivers.script_recompiles": ("recompiles_of_script",),
        ".drivers.target_recompiles": ("ledger_of_target",),
        ".analysis.explain": ("Explanation",),
        ".drivers.explain": ("explain",),
        ".drivers.passes": ("pass_timeline",),
        ".analysis.passes": ("PassTimeline",),
        ".drivers.compile_time": ("compile_time",),
        ".analysis.compile_time": ("CompileTime",),
        ".drivers.variants": ("try_variants",),
        ".capture.jaxpr_lines": ("capture_with_sources", "SourcedCapture"),
        ".reporting": ("Report", "build_report", "write_report"),
        ".bench.api": ("compare", "BenchResult", "BenchComparison"),
    },
)


def capture(function: Any, *args: Any, **options: Any) -> Any:
    """Capture every stage of what JAX or TensorFlow makes of ``function``: see
    :func:`hloscope.capture.inprocess.capture`. A function here, not the subpackage: the
    subpackage was imported above, so importing its modules later does not rebind
    ``hloscope.capture``."""
    from .capture.inprocess import capture as run

    return run(function, *args, **options)


def benchmark(target: Any, *args: Any, **options: Any) -> BenchResult:
    """Compile and time ``target`` on the default JAX device, a :class:`BenchResult`: see
    :func:`hloscope.bench.bench` (this name, because ``hloscope.bench`` is the package).
    Two programs against each other: :func:`compare`."""
    from .bench.api import bench as run

    return run(target, *args, **options)


def fleet(
    paths: Any, *, label: str | None = None, scheduler: str | None = None
) -> pandas.DataFrame:
    """One row per module of every XLA dump under ``paths`` (folders or prefixes), analysed
    on Dask: see :mod:`hloscope.fleet` (a function here, as :func:`capture` is,
    over the subpackage of the same name)."""
    from .fleet import fleet as run

    return run(paths, label=label, scheduler=scheduler)


#: Result classes that display as HTML in Jupyter, by the module that defines each, with the
#: ``module:function`` that shows one (:mod:`hloscope.render.html.notebook`; a fusion report's
#: notes and a capture's whole report are gathered above the renderers, in
#: :mod:`hloscope.reporting`). Their
#: ``_repr_html_`` is set when the module is imported.
_NOTEBOOK_VIEWS = {
    "hloscope.analysis.fusions": ("FusionReport", ".reporting.notebook_views:fusion_report_view"),
    "hloscope.analysis.diff": ("KernelDiff", ".render.html.notebook:kernel_diff_html"),
    "hloscope.backends.record": ("Capture", ".reporting:capture_html"),
}


def _view_installer(class_name: str, renderer: str) -> Any:
    """What gives a result class its ``_repr_html_`` once its module is executed (the
    classes live in lower layers, which must not import the renderers)."""
    where, name = renderer.split(":")

    def _repr_html_(self: Any) -> str:
        return getattr(importlib.import_module(where, __name__), name)(self)

    _repr_html_.__name__ = name

    def install(module: Any) -> None:
        getattr(module, class_name)._repr_html_ = _repr_html_

    return install


for _module_name, _view in _NOTEBOOK_VIEWS.items():
    after_import(_module_name, _view_installer(*_view))


# The eager names and the functions defined here (over the subpackages of the same names),
# then every lazy one.
__all__ = ["HloscopeError", "Stage", "capture", "benchmark", "fleet", *_LAZY_NAMES]
