"""What a Pallas kernel without a cost_estimate costs: JAX's Pallas cost rules over its jaxpr,
times its grid, checked against XLA's own count of the same arithmetic written in plain JAX.

XLA cannot read a kernel's body (a ``tpu_custom_call`` on a TPU): its cost analysis counts a
kernel's ``cost_estimate`` or nothing. These tests trace kernels (on this machine's CPU, in
interpret mode: the jaxpr is the same) and compare the estimate with ``cost_analysis()`` of
``jnp.dot`` on the same shapes, then give the estimate to the cost model by the kernel's
types, on a module XLA:TPU made (``tests/data/tpu/pallas_kernels``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

from hloscope.analysis.cost import (
    PALLAS_ESTIMATED,
    estimated_pallas_kernels,
    instruction_cost,
    module_cost,
    unestimated_pallas_kernels,
)
from hloscope.analysis.fusion_notes import summary_to_dict
from hloscope.analysis.fusions import fusion_report
from hloscope.backends.pallas_kernels import calls_kernels, hlo_type, kernel_estimates
from hloscope.bench.api import _unknown_cost_note
from hloscope.hlo.parser import parse

TPU = Path(__file__).resolve().parent / "data" / "tpu" / "pallas_kernels"


def _pallas():
    jax = needs_framework("jax")
    from jax.experimental import pallas as pl

    return jax, jax.numpy, pl


def _matmul(jax, jnp, pl, m, k, n, block=128, chunks=1):
    """A blocked matmul kernel; with ``chunks`` > 1 it adds up the contraction in a
    ``fori_loop`` over ``chunks`` slices of K inside each grid step."""

    def kernel(x_ref, y_ref, o_ref):
        step = k // chunks

        def body(i, acc):
            x = x_ref[:, pl.ds(i * step, step)]
            y = y_ref[pl.ds(i * step, step), :]
            return acc + jnp.dot(x, y, preferred_element_type=jnp.float32)

        zero = jnp.zeros((block, block), jnp.float32)
        o_ref[...] = jax.lax.fori_loop(0, chunks, body, zero).astype(o_ref.dtype)

    def matmul(x, y):
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
            grid=(m // block, n // block),
            in_specs=[
                pl.BlockSpec((block, k), lambda i, j: (i, 0)),
                pl.BlockSpec((k, block), lambda i, j: (0, j)),
            ],
            out_specs=pl.BlockSpec((block, block), lambda i, j: (i, j)),
            interpret=True,
        )(x, y)

    return matmul


def _xla_dot_flops(jax, jnp, m, k, n):
    x, y = jnp.ones((m, k), jnp.float32), jnp.ones((k, n), jnp.float32)
    cost = jax.jit(jnp.dot).lower(x, y).compile().cost_analysis()
    return (cost[0] if isinstance(cost, list) else cost)["flops"]


@pytest.mark.parametrize(("shape", "chunks"), [((256, 512, 384), 1), ((512, 256, 256), 4)])
def test_a_kernels_flops_are_xlas_for_the_same_arithmetic(shape, chunks):
    jax, jnp, pl = _pallas()
    m, k, n = shape
    matmul = _matmul(jax, jnp, pl, m, k, n, chunks=chunks)
    x, y = jnp.ones((m, k), jnp.float32), jnp.ones((k, n), jnp.float32)
    (estimate,) = kernel_estimates(jax.jit(matmul).trace(x, y).jaxpr)
    # The dot's FLOPs as XLA counts them, plus what the kernel adds: the accumulator's adds
    # (chunks * m * n) and a few scalar ops per loop trip and grid step (the slices' offsets,
    # the loop's counter), which JAX's rules count too.
    arithmetic = _xla_dot_flops(jax, jnp, m, k, n) + chunks * m * n
    steps = (m // 128) * (n // 128)
    assert arithmetic <= estimate["flops"] <= arithmetic + 4 * chunks * steps
    assert estimate["grid"] == [m // 128, n // 128]
    assert estimate["operands"] == [f"f32[{m},{k}]", f"f32[{k},{n}]"]
    assert estimate["results"] == [f"f32[{m},{n}]"]


def test_a_kernel_given_an_estimate_or_called_twice_is_counted_once_or_not_at_all():
    jax, jnp, pl = _pallas()
    matmul = _matmul(jax, jnp, pl, 256, 256, 256)
    x = jnp.ones((256, 256), jnp.float32)
    twice = jax.jit(lambda x: matmul(matmul(x, x), x))
    assert len(kernel_estimates(twice.trace(x).jaxpr)) == 1  # same kernel, same types

    def given(x_ref, o_ref):
        o_ref[...] = jnp.tanh(x_ref[...])

    cost = pl.CostEstimate(flops=0, transcendentals=256 * 256, bytes_accessed=2 * 4 * 256 * 256)
    estimated = pl.pallas_call(
        given, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), cost_estimate=cost, interpret=True
    )
    assert kernel_estimates(jax.jit(estimated).trace(x).jaxpr) == []
    plain = jax.jit(lambda x: x * 2)
    assert kernel_estimates(plain.trace(x).jaxpr) == []
    assert not calls_kernels(plain.lower(x).as_text())


def test_types_are_spelled_as_xla_prints_them():
    jax, jnp, _ = _pallas()
    import ml_dtypes
    import numpy as np

    spelled = {
        np.bool_: "pred",
        jnp.bfloat16: "bf16",
        np.float32: "f32",
        np.int8: "s8",
        np.uint32: "u32",
        np.complex64: "c64",
        ml_dtypes.float8_e4m3fn: "f8e4m3fn",
    }
    for dtype, name in spelled.items():
        aval = jax.ShapeDtypeStruct((2, 3), dtype)
        assert hlo_type(aval) == f"{name}[2,3]"
    assert hlo_type(jax.ShapeDtypeStruct((), jnp.float32)) == "f32[]"


def _tpu_module():
    (after,) = TPU.glob("*.after_optimizations.txt")
    return parse(after.read_text())


def test_the_cost_model_finds_a_kernels_estimate_by_its_types():
    # pallas_kernels (XLA:TPU's module): its second kernel, bf16[1024,1024] @ bf16[1024,512],
    # carries no cost_estimate. Given the capture's estimate, it costs that.
    module = _tpu_module()
    xla_flops = json.loads((TPU / "oracle.json").read_text())["cost_analysis"]["flops"]
    second = 2 * 1024 * 1024 * 512
    module.kernel_estimates = [
        {
            "operands": ["bf16[1024,1024]", "bf16[1024,512]"],
            "results": ["bf16[1024,512]"],
            "flops": second,
            "transcendentals": 0,
            "grid": [4, 2],
            "kernel": "matmul_kernel",
        }
    ]
    cost = module_cost(module)
    assert cost.flops == pytest.approx(xla_flops + second, rel=2**-24)
    (flagged,) = cost.flagged
    assert PALLAS_ESTIMATED in flagged.reason
    assert (
        estimated_pallas_kernels(cost.flagged) == 1
        and unestimated_pallas_kernels(cost.flagged) == 0
    )
    # XLA's own rule still knows nothing of it.
    kernel = next(i for i in module.instructions() if i.name == flagged.name)
    assert instruction_cost(kernel, custom_calls="xla").flops == -1
    # fusions and bench say whose FLOPs these are.
    notes = " ".join(summary_to_dict(fusion_report(module).summary)["notes"])
    assert "hloscope's estimate from each kernel's jaxpr" in notes and "unknown cost" not in notes
    note = _unknown_cost_note(fusion_report(module).summary.flagged)
    assert note is not None and "includes hloscope's estimate" in note and "0 FLOPs" not in note
    # Types that match no estimate leave the kernel unknown.
    other = _tpu_module()
    other.kernel_estimates = [{**module.kernel_estimates[0], "results": ["bf16[1024,513]"]}]
    assert unestimated_pallas_kernels(module_cost(other).flagged) == 1
