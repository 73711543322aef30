"""Compiling and timing programs and single kernels on the device JAX sees (issue 12).

The package exports the two entry points::

    from hloscope import bench
    bench.bench("train.py:step", per_kernel=True)   # a BenchResult (hloscope.benchmark)
    bench.compare("a.py:f", "b.py:f").verdict       # a BenchComparison (hloscope.compare)

The layer sits between the analyses (costs, kernels, sources) and the renderers, and imports
jax and jaxlib only inside functions; every private jaxlib API it needs goes through
the seam of :mod:`hloscope.backends` (``jaxlib_version``). By concern:

===============  ===============================================================================
``api``          :func:`~.api.bench` (a program and its kernels timed, costed, under a
                 roofline) and :func:`~.api.compare` (two programs against each other)
``program``      what is timed: a callable, a SCRIPT.py:FUNCTION, or any TARGET's module
``timing``       the harness: warm-up, block_until_ready, runs until a precision or a budget
``inputs``       entry parameters, random inputs in their layouts, donation
``extract``      one kernel as a standalone module; optimized HLO made plain for the compiler
``compile``      compiling HLO text for a device, running it
``kernels``      per-kernel microbenchmarks, net of the launch overhead
``peaks``        a device's peaks: the device registry's, or the CPU's, measured and cached
``comparison``   A against B: interleaved runs, bootstrap interval, verdict
``profile``      kernel times read from a profiler trace of the whole program
===============  ===============================================================================

The maths on a device's figures (the roofline, the step estimate, collectives priced on an
interconnect, the memory fit) is the analysis layer's (:mod:`hloscope.analysis.roofline`...),
on the rows of :mod:`hloscope.devices`: the offline commands never load this package's
modules.
"""

from ..lazy_exports import lazy_exports

# Loaded on first use: ``import hloscope`` imports this package, and the harness pulls in
# numpy and the cost model, which a command that does not time anything never needs.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__, globals(), {".api": ("bench", "compare", "BenchResult", "BenchComparison")}
)
