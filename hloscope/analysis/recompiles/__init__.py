"""The recompile ledger: per function, how often it compiled, why each time, and what to do.

Dynamic shapes make XLA compile again, and on a TPU one compile can take minutes. The ledger
takes what was compiled -- :class:`~hloscope.backends.compile_records.CompileRecord` objects from a
live watch (:func:`hloscope.watch_compiles`), from a script run
(:func:`hloscope.recompiles_of_script`) or read offline from a dump folder
(:func:`ledger_of_dump`) -- and answers, per function. Watching, running a script and opening a
TARGET are :mod:`hloscope.drivers`' (:mod:`~hloscope.drivers.compile_watch`,
:mod:`~hloscope.drivers.script_recompiles`, :mod:`~hloscope.drivers.target_recompiles`); this
package takes their records:

* how many compiles and how long they took (tracing, lowering and XLA where known);
* for each argument, the dimensions that varied and the sizes seen, and the dtypes;
* for each compile, every way it differs from the *previous* compile of that function, as
  :class:`Cause` values (``shape``, ``dtype``, ``weak_type``, ``static_value``, ``pytree``,
  ``sharding``, ``function_recreated``, ``cache_cleared``, ``context``; ``first`` for the
  first compile). JAX's
  own explanation names one category, against the closest earlier key, so a config change
  hides a shape change; here both are named;
* a concrete fix (:class:`Advice`): the bucket sizes that would cover every size seen and the
  compiles they would save, which argument to stop passing as a Python scalar or to stop marking
  static, ``input_signature``/``reduce_retracing`` for TensorFlow, hoisting a ``jax.jit`` or a
  lambda out of a loop.

* for each JAX compile, what the persistent compilation cache did (``hit``, ``miss``,
  ``not_written`` and JAX's reason, ``off``) and, against a kept run, which part of JAX's
  cache key changed (:mod:`._persistent_cache`; ``persistent_cache`` is absent from
  TensorFlow's events).

``Ledger.to_dict()`` is the JSON contract of ``hloscope recompiles --json``::

    {"functions": [{"name", "defined_at", "compiles", "compile_seconds",
                    "arguments": [{"path", "varying_dims": {"0": [4, 7, 9, 16]}, "dtypes"}],
                    "events": [{"index", "cause": [...], "signature", "call_site", "seconds",
                                "persistent_cache": {"result", "reason", "changed": [
                                    {"part", "detail", "fix"}], "key", "fix"}}],
                    "advice": [{"kind", "text", ...}]}]}

Offline, a dump tells less: weak types are invisible in HLO and static arguments show only as
changed results, so a compile whose parameters are the same as the previous one's but whose
results differ is put down as ``static_value`` (a JAX static argument, an eager op's shape, a
TensorFlow compile-time constant).

The package, one job per module: ``_ledger`` (the data model above), ``_grouping`` (records
to a ledger), ``_names`` (names of flattened arguments and static values), ``_differences``
(what changed between two compiles), ``_histories`` (each argument over time), ``_advice``
(the table of fixes, :data:`RULES`), ``_persistent_cache`` (the persistent cache's results
and what changed in its key) and ``_dumps`` (the offline ledger of a dump or HLO file's
modules).
"""

from typing import TYPE_CHECKING

from ...lazy_exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - the names as mypy sees them; at run time, the table
    # below. Re-exports (F401): ruff cannot read the __all__ that the table gives.
    from ._advice import ARGUMENT_RULES, RULES, ArgumentRule, Rule, advice_for, bucket_sizes  # noqa: F401
    from ._dumps import ledger_of_dump, ledger_of_modules  # noqa: F401
    from ._grouping import build_ledger  # noqa: F401
    from ._ledger import (  # noqa: F401
        Advice,
        AdviceKind,
        ArgumentHistory,
        Cause,
        CompileEvent,
        Difference,
        FunctionLedger,
        Ledger,
        ledger_name,  # hloscope.testing names functions the way the ledger does
    )
    from ._persistent_cache import CacheVerdict, KeyChange, cache_notes, cache_verdicts  # noqa: F401

# Loaded on first use (PEP 562): ``hloscope recompiles SCRIPT.py`` starts the script from
# :mod:`hloscope.drivers.script_recompiles` alone and imports the ledger while the script runs.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        "._ledger": (
            "ledger_name",
            "Cause",
            "AdviceKind",
            "Difference",
            "CompileEvent",
            "ArgumentHistory",
            "Advice",
            "FunctionLedger",
            "Ledger",
        ),
        "._persistent_cache": ("CacheVerdict", "KeyChange", "cache_verdicts", "cache_notes"),
        "._grouping": ("build_ledger",),
        "._dumps": ("ledger_of_dump", "ledger_of_modules"),
        "._advice": (
            "bucket_sizes",
            "advice_for",
            "Rule",
            "ArgumentRule",
            "RULES",
            "ARGUMENT_RULES",
        ),
    },
)
