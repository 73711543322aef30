"""Backends: the one door between hloscope and the compilers it asks.

A :class:`Backend` lowers a function and compiles it (:class:`Lowered`, :class:`Compiled`,
shaped like ``jax.stages``) and hands back the optimized module, XLA's memory and cost
analyses, the dump's reports and, when it can run here, something runnable. Three backends:

* :class:`LocalJax`: the JAX installed here, for its default device (``hloscope.capture``);
* :class:`TensorFlow`: ``tf.function(jit_compile=True)`` and Keras models;
* :class:`XlaTpu`: XLA:TPU through libtpu, for any TPU chip or slice of the device registry,
  on a machine without a TPU (``pip install 'hloscope[tpu]'``).

:func:`backend_for` picks one from the device asked for (the first row of an ordered table
that claims it: :func:`backend_rows`; :func:`register_backend` adds one), and
:func:`capture_for` captures with it, recording what compiled the module::

    from hloscope.backends import capture_for

    cap = capture_for(step, (params, batch), {}, device="tpu-v5e")
    cap.compiled_for  # 'TPU v5 lite' (None for an estimate, with cap.estimate_note)
    cap.memory["peak_memory_in_bytes"]  # what the chip reserves for this program

The layer sits above the device registry, HLO and dumps and below capture/: everything that
compiles (a capture, bench, a check's TPU confirm) compiles through it, and it runs no scripts
itself. Beside the seam it holds what a compile needs: the :class:`~.record.Capture` record,
the frameworks' loading (:mod:`.frameworks`), JAX's lowering and compile (:mod:`.jax_lowering`,
:mod:`.jax_compile`), TensorFlow's (:mod:`.tf_compile`), example arguments placed on a
topology (:mod:`.placement`), Pallas kernels' costs (:mod:`.pallas_kernels`), tracing of
non-JAX leaves (:mod:`.traceable`), the one reader of jaxlib's private APIs
(:mod:`._jaxlib`) and the compile-side errors (:mod:`.errors`).
"""

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - the names as mypy sees them; at run time, the table
    # below. Re-exports (F401): ruff cannot read the __all__ that the table gives.
    from ._base import LOCAL_XLA, Backend, BackendName, Compiled, Lowered  # noqa: F401
    from ._jaxlib import (  # noqa: F401
        TRACEBACK_LIMIT_ENV,
        UNLIMITED_TRACEBACK,
        compile_only,
        compile_with_memory_reports,
        hide_hloscope_frames,
        jaxlib_version,
        lower_for_platform,
        trace_context_items,
    )
    from ._local import LocalJax, TensorFlow  # noqa: F401
    from ._registry import (  # noqa: F401
        ENTRY_POINT_GROUP,
        BackendRow,
        backend_for,
        backend_row,
        backend_rows,
        built_in,
        cache_key_for,
        capture_for,
        estimate_note,
        not_compiled_for,
        register_backend,
        unregister_backend,
    )
    from ._xla_tpu import (  # noqa: F401
        LIBTPU_ENVIRONMENT,
        TPU_EXTRA_HINT,
        XlaTpu,
        libtpu_environment,
        libtpu_installed,
    )
    from .record import Capture, PassSnapshot  # noqa: F401

# Loaded on first use (PEP 562): a records module of this package (compile_records,
# jaxpr_records, lowering_facts...) is read by the ledger and the checks without the seam, the
# registry and the Capture record (which reads dumps) coming along.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        "._base": ("Backend", "BackendName", "Compiled", "LOCAL_XLA", "Lowered"),
        "._local": ("LocalJax", "TensorFlow"),
        "._registry": (
            "ENTRY_POINT_GROUP",
            "BackendRow",
            "backend_for",
            "backend_row",
            "backend_rows",
            "built_in",
            "cache_key_for",
            "capture_for",
            "estimate_note",
            "not_compiled_for",
            "register_backend",
            "unregister_backend",
        ),
        "._xla_tpu": (
            "LIBTPU_ENVIRONMENT",
            "TPU_EXTRA_HINT",
            "XlaTpu",
            "libtpu_environment",
            "libtpu_installed",
        ),
        ".record": ("Capture", "PassSnapshot"),
        # The seam to jaxlib's private APIs for the layers above (the module itself, _jaxlib,
        # is this package's own): what a capture child, the TPU confirm, memory and bench ask.
        "._jaxlib": (
            "TRACEBACK_LIMIT_ENV",
            "UNLIMITED_TRACEBACK",
            "compile_only",
            "compile_with_memory_reports",
            "hide_hloscope_frames",
            "jaxlib_version",
            "lower_for_platform",
            "trace_context_items",
        ),
    },
)
