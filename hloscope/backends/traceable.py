"""A function and its example arguments in the form ``jax.jit(...).trace(...)`` takes.

Capture, check, explain and the TPU confirm step all trace the user's function the way
``jax.jit`` does. That works for a function of arrays and Python scalars, and for a function
``jax.jit`` already wraps (its own ``trace`` keeps its static arguments and shardings). It
fails for two common kinds of program:

* a function whose arguments hold leaves that are no JAX type: an Equinox or Flax module
  carries its activation functions and settings beside its weights, a config object holds
  strings. ``jax.jit`` refuses them ("Error interpreting argument ... as an abstract array");
* so does a function wrapped by a library's own jit that has no ``trace`` (Equinox's
  ``eqx.filter_jit``), called with such arguments: wrapping it in ``jax.jit`` meets the same
  refusal.

Such libraries trace the array leaves and hold every other leaf fixed (Equinox's rule: "all
arrays are traced, everything else is static"). :func:`traceable` does the same when some leaf
is no JAX type, and only then: the function of the array leaves alone (the function itself
called inside, its wrapper included), the other leaves closed over, returning the array leaves
of its result; it keeps the function's name, so the module is still ``jit_<name>``. Any other
function is traced exactly as ``jax.jit`` would (a ``jax.pmap`` function inside it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["traceable"]


def traceable(
    fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """``(jitted, args, kwargs)`` such that ``jitted.trace(*args, **kwargs)`` traces what
    calling ``fn(*args, **kwargs)`` computes (see the module docstring)."""
    from .frameworks import require_jax

    jax = require_jax()
    if callable(getattr(fn, "trace", None)) and callable(getattr(fn, "lower", None)):
        return fn, tuple(args), dict(kwargs)
    leaves, treedef = jax.tree_util.tree_flatten((tuple(args), dict(kwargs)))
    if all(_jax_type(leaf, jax) for leaf in leaves):
        # jax.jit of the function as it is: a library's wrapper too (jax.pmap, whose `lower`
        # comes without `trace`; eqx.filter_jit of arrays alone), traced inside.
        return jax.jit(fn), tuple(args), dict(kwargs)
    dynamic = [i for i, leaf in enumerate(leaves) if _array(leaf, jax)]

    def arrays_only(*values: Any) -> list[Any]:
        filled = list(leaves)
        for i, value in zip(dynamic, values, strict=True):
            filled[i] = value
        call_args, call_kwargs = jax.tree_util.tree_unflatten(treedef, filled)
        # The function itself, wrapper included: a library's jit (eqx.filter_jit) traces
        # inside this one as a nested call, which XLA inlines.
        result = fn(*call_args, **call_kwargs)
        return [leaf for leaf in jax.tree_util.tree_leaves(result) if _array(leaf, jax)]

    inner = getattr(fn, "__wrapped__", fn)
    name = getattr(fn, "__name__", None) or getattr(inner, "__name__", None) or "fn"
    arrays_only.__name__ = arrays_only.__qualname__ = str(name)
    return jax.jit(arrays_only), tuple(leaves[i] for i in dynamic), {}


def _array(leaf: Any, jax: Any) -> bool:
    """An array JAX traces: a jax or NumPy array, or an abstract one (``ShapeDtypeStruct``)."""
    import numpy as np

    return isinstance(leaf, (jax.Array, np.ndarray, jax.ShapeDtypeStruct))


def _jax_type(leaf: Any, jax: Any) -> bool:
    """A leaf ``jax.jit`` takes as an argument: an array, a NumPy scalar or a Python number."""
    import numpy as np

    return _array(leaf, jax) or isinstance(leaf, (np.generic, bool, int, float, complex))
