"""What the Pallas kernels of a traced program cost, when their author gave no estimate.

A Pallas kernel reaches XLA as one custom call (``tpu_custom_call`` on a TPU) whose body XLA
cannot read: XLA:TPU's cost analysis counts the ``cost_estimate`` given to ``pallas_call``, and
nothing for a kernel without one. A program whose matrix products run in Pallas kernels then
looks memory-bound at a few percent of the roof, with almost none of its FLOPs counted.

The traced program still holds each kernel's jaxpr and its grid. :func:`kernel_estimates`
walks the jaxpr for ``pallas_call`` equations without a ``cost_estimate`` and prices one grid
step with JAX's own Pallas cost rules (those of ``pl.estimate_cost``; loops inside the kernel
count their trip count where it is static), times the number of grid steps. Each estimate is
keyed by the kernel's operand and result types in XLA's spelling (``bf16[2048,1024]``), which
is how the cost model finds the custom call it belongs to (:mod:`hloscope.analysis.cost`).
What is estimated is the arithmetic; the bytes stay the kernel's boundary (its operands read
once, its results written once), a lower bound of what a kernel that refetches blocks moves.
"""

from __future__ import annotations

import math
from typing import Any

from .jax_lowering import _name, equations_with_callers

__all__ = ["kernel_estimates", "calls_kernels", "hlo_type"]

# The custom calls a Pallas kernel becomes: Mosaic on a TPU, Triton or Mosaic GPU on a GPU.
_KERNEL_CALLS = ("tpu_custom_call", "__gpu$xla.gpu.triton", "mosaic_gpu")


def calls_kernels(text: str) -> bool:
    """Whether a module's text (StableHLO or HLO) calls a Pallas kernel: the jaxpr is walked
    only then."""
    return any(call in text for call in _KERNEL_CALLS)


# NumPy's names of element types (ml_dtypes' included) with their HLO spelling; the rest map
# by prefix: float32 -> f32, int8 -> s8, uint16 -> u16, complex64 -> c64.
_NAMED = {"bool": "pred", "bfloat16": "bf16"}
_PREFIXES = (("float8_", "f8"), ("float", "f"), ("uint", "u"), ("int", "s"), ("complex", "c"))


def hlo_type(aval: Any) -> str:
    """``bf16[2048,1024]``: an abstract value's type as XLA prints it, without a layout."""
    name = str(getattr(getattr(aval, "dtype", None), "name", aval.dtype))
    spelled = _NAMED.get(name)
    if spelled is None:
        prefix, short = next(((p, s) for p, s in _PREFIXES if name.startswith(p)), ("", ""))
        spelled = short + name[len(prefix) :] if prefix else name
    return f"{spelled}[{','.join(str(int(d)) for d in aval.shape)}]"


def kernel_estimates(jaxpr: Any) -> list[dict[str, Any]]:
    """One estimate per distinct Pallas kernel of ``jaxpr`` given no ``cost_estimate``:
    ``{"operands": [...], "results": [...], "flops", "transcendentals", "grid", "kernel"}``.
    Empty when this JAX has no Pallas cost rules, or no such kernel."""
    from . import _jaxlib

    if jaxpr is None:
        return []

    found: dict[tuple[tuple[str, ...], tuple[str, ...]], dict[str, Any]] = {}
    for equation, _ in equations_with_callers(jaxpr):
        if _name(equation) != "pallas_call" or equation.params.get("cost_estimate") is not None:
            continue
        grid = _grid(equation.params.get("grid_mapping"))
        step = _jaxlib.pallas_step_cost(equation.params.get("jaxpr"))
        if grid is None or step is None:
            continue
        operands = tuple(hlo_type(v.aval) for v in equation.invars)
        results = tuple(hlo_type(v.aval) for v in equation.outvars)
        steps = math.prod(grid)
        estimate = {
            "operands": list(operands),
            "results": list(results),
            "flops": step[0] * steps,
            "transcendentals": step[1] * steps,
            "grid": list(grid),
            "kernel": _kernel_name(equation),
        }
        # One helper called from two places traces the same kernel twice: keep one entry.
        # Two different kernels of the same types keep the larger estimate, not a sum.
        known = found.get((operands, results))
        if known is None or known["flops"] < estimate["flops"]:
            found[(operands, results)] = estimate
    return list(found.values())


def _grid(mapping: Any) -> tuple[int, ...] | None:
    """The kernel's grid as integers (``()`` for a single step); ``None`` when dynamic."""
    grid = getattr(mapping, "grid", None)
    if grid is None:
        return None
    try:
        return tuple(int(size) for size in grid)
    except (TypeError, ValueError):  # a grid sized at run time
        return None


def _kernel_name(equation: Any) -> str | None:
    named = equation.params.get("name_and_src_info") or equation.params.get("name")
    if named:
        return str(getattr(named, "name", named))
    debug = getattr(equation.params.get("jaxpr"), "debug_info", None)
    name = getattr(debug, "func_name", None)
    return str(name) if name else None
