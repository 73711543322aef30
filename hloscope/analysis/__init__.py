"""Analyses of parsed HLO: cost model, fusion report, kernel diff, module summary.

Each analysis takes parsed :class:`~hloscope.hlo.model.Module` objects (or what another
analysis made of them) and returns data, never text:

* :mod:`.cost` -- FLOPs, transcendentals and bytes per instruction, kernel and module, by
  XLA's own ``HloCostAnalysis`` rules (:func:`module_cost`);
* :mod:`.fusions` -- the kernels XLA made of a module, what each fuses, costs and came from
  (:func:`fusion_report`; ``fusions.fusions`` for a DataFrame);
* :mod:`.diff` -- which kernels split, merged or changed between two compilations
  (``diff.diff``);
* :mod:`.summary` -- counts and highlights of one module (:func:`summarize`).

The functions named like their modules (``fusions.fusions``, ``diff.diff``) are not
re-exported here, so that ``hloscope.analysis.fusions`` stays the module.

Data flows one way: :mod:`hloscope.render` words and draws these results, and the top-level
``hloscope.fusions(TARGET)`` / ``hloscope.diff(A, B)`` resolve files, dump folders and
scripts to modules before calling in here.
"""

from ..lazy_exports import lazy_exports

# Loaded on first use (PEP 562), so that importing one submodule does not import them all.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        ".cost": ("Cost", "ModuleCost", "module_cost"),
        ".fusions": ("Kernel", "FusionSummary", "FusionReport", "fusion_report", "by_source"),
        ".diff": ("ChangeStatus", "LineStatus", "KernelChange", "KernelDiff", "Regression"),
        ".summary": ("ModuleSummary", "summarize"),
    },
)
