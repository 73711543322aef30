"""Regenerate tests/data/tpu_xla_kernels: attention programs for which XLA:TPU writes Mosaic
kernels of its own (a ``tpu_custom_call`` that is no ``pallas_call``).

    python tests/data/tpu_xla_kernels/regenerate.py [PROGRAM ...]

Compiled as ../tpu/regenerate.py compiles its programs (libtpu's deviceless compile for a v5e,
the same kept files, ``oracle.json`` with XLA:TPU's own ``cost_analysis()``), kept apart from
that corpus because XLA's FLOPs and hloscope's differ here on purpose: XLA counts nothing for
``online-softmax`` (its own kernel, given no cost estimate), hloscope counts its estimate
(tests/test_xla_tpu_kernels.py). Made with jax/jaxlib 0.10.2 and libtpu 0.0.42.1.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tpu"))

import regenerate as tpu  # noqa: E402  (the TPU corpus's compile, from its folder)

# softmax(scores) @ v with no Pallas kernel of the program's own: XLA:TPU writes one itself.
_ATTENTION = """
def FUNCTION(q, k, v):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


ARGS = (spec(SHAPE, DTYPE),) * 3
"""

PROGRAMS = {
    # bf16 heads of 64: "online-softmax", given no cost estimate.
    "attention_bf16": _ATTENTION.replace("SHAPE", "(4, 8, 1024, 64)").replace(
        "DTYPE", "jnp.bfloat16"
    ),
    # A causal mask, other sizes: "online-softmax" again.
    "attention_causal": _ATTENTION.replace(
        "jax.nn.softmax(scores, axis=-1)",
        "jax.nn.softmax(jnp.where(jnp.tri(scores.shape[-1], dtype=bool), scores, -1e9), axis=-1)",
    )
    .replace("SHAPE", "(2, 4, 2048, 64)")
    .replace("DTYPE", "jnp.bfloat16"),
    # f32 heads of 128, no head axis, unscaled: one kernel of both products and the softmax
    # ("dot_general"), to which XLA:TPU gives a cost estimate of its own.
    "attention_f32": _ATTENTION.replace("bhqd,bhkd->bhqk", "bqd,bkd->bqk")
    .replace("bhqk,bhkd->bhqd", "bqk,bkd->bqd")
    .replace(" / 8.0", "")
    .replace("SHAPE", "(8, 512, 128)")
    .replace("DTYPE", "jnp.float32"),
    # XLA:TPU's own custom calls that are no Mosaic kernel: TopK (two shapes), and the
    # AssumeGatherIndicesInBound marker of an embedding lookup.
    "top_k": """
def FUNCTION(x):
    return jax.lax.top_k(x, 8)


ARGS = (spec((256, 32000)),)
""",
    "top_k_wide": """
def FUNCTION(x):
    return jax.lax.top_k(x, 16)


ARGS = (spec((64, 50000)),)
""",
    "gather": """
def FUNCTION(ids, table):
    return table[ids].sum(axis=0)


ARGS = (spec((4096,), jnp.int32), spec((32000, 512)))
""",
}


def main(names: list[str]) -> None:
    for name in names or list(PROGRAMS):
        tpu.program(name, PROGRAMS[name])
        target = tpu.compile_program(name, into=HERE)
        print(f"{name}: {sum(p.stat().st_size for p in target.iterdir()) / 1e3:.0f} kB")


if __name__ == "__main__":
    main(sys.argv[1:])
