"""Programs whose memory XLA:TPU judges three ways, for ``tests/test_memory_verdicts.py``.

Each function is a ``SCRIPT.py:FUNCTION`` target for ``hloscope memory --device tpu-v5e`` (its
``example_args`` are ``jax.ShapeDtypeStruct``s: nothing is allocated on this machine) and is
compiled for a v5e by ``tests/memory_tpu_oracle.py`` too, with plain JAX, as the oracle. Two
kinds of program, each at three sizes:

* an Adam train step of an MLP (``params``, ``m``, ``v``: arguments and outputs fill the
  memory): fits under the 80% limit, compiles above it (about 86% of the v5e's 16 GiB),
  refused by XLA:TPU;
* a bf16 MLP whose forward activations are held for the backward pass (temporaries fill the
  memory): the same three sizes.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

WIDTH = 8192


def _mlp_loss(params: list[jax.Array], x: jax.Array) -> jax.Array:
    for w in params:
        x = jnp.tanh(x @ w)
    return jnp.mean(x.astype(jnp.float32) ** 2)


def adam_step(params: list[jax.Array], m: list[jax.Array], v: list[jax.Array], x: jax.Array) -> Any:
    grads = jax.grad(_mlp_loss)(params, x)
    m = [0.9 * a + 0.1 * g for a, g in zip(m, grads, strict=True)]
    v = [0.999 * a + 0.001 * g * g for a, g in zip(v, grads, strict=True)]
    params = [p - 1e-3 * a / (jnp.sqrt(b) + 1e-8) for p, a, b in zip(params, m, v, strict=True)]
    return params, m, v


def _adam_args(layers: int, width: int = WIDTH) -> tuple[Any, ...]:
    arrays = [jax.ShapeDtypeStruct((width, width), jnp.float32) for _ in range(layers)]
    return (arrays, arrays, arrays, jax.ShapeDtypeStruct((4096, width), jnp.float32))


def adam_fits(params: Any, m: Any, v: Any, x: jax.Array) -> Any:
    return adam_step(params, m, v, x)


def adam_above_limit(params: Any, m: Any, v: Any, x: jax.Array) -> Any:
    return adam_step(params, m, v, x)


def adam_refused(params: Any, m: Any, v: Any, x: jax.Array) -> Any:
    return adam_step(params, m, v, x)


adam_fits.example_args = _adam_args(2, 2048)  # type: ignore[attr-defined]
adam_above_limit.example_args = _adam_args(9)  # type: ignore[attr-defined]
adam_refused.example_args = _adam_args(11)  # type: ignore[attr-defined]


def _grad_step(params: list[jax.Array], x: jax.Array) -> Any:
    grads = jax.grad(_mlp_loss)(params, x)
    return [p - 0.01 * g for p, g in zip(params, grads, strict=True)]


def _activation_args(layers: int, batch: int) -> tuple[Any, ...]:
    weights = [jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16) for _ in range(layers)]
    return (weights, jax.ShapeDtypeStruct((batch, 4096), jnp.bfloat16))


def activations_fit(params: Any, x: jax.Array) -> Any:
    return _grad_step(params, x)


def activations_above_limit(params: Any, x: jax.Array) -> Any:
    return _grad_step(params, x)


def activations_refused(params: Any, x: jax.Array) -> Any:
    return _grad_step(params, x)


activations_fit.example_args = _activation_args(4, 8192)  # type: ignore[attr-defined]
activations_above_limit.example_args = _activation_args(12, 131072)  # type: ignore[attr-defined]
activations_refused.example_args = _activation_args(4, 524288)  # type: ignore[attr-defined]

#: Each program's verdict on a v5e under the default 80% limit.
VERDICTS = {
    "adam_fits": "fits",
    "adam_above_limit": "fits_above_limit",
    "adam_refused": "does_not_fit",
    "activations_fit": "fits",
    "activations_above_limit": "fits_above_limit",
    "activations_refused": "does_not_fit",
}
