"""One layer written twice: once so XLA fuses it, once so it cannot. Input for a fusion diff.

Both functions compute the same thing, a dense layer followed by a GELU-like elementwise chain:

    y = x @ w
    gate = sigmoid(1.702 * y)
    out = y * gate + 0.1 * y

``fused`` writes it plainly. XLA's fusion pass merges the whole elementwise chain into one loop
fusion: one kernel that reads ``y`` once and writes ``out`` once.

``split`` is the same layer after a refactor that looks harmless: it hands ``gate`` to
``jax.debug.callback`` in the middle of the chain, to log its mean. A host callback is a
``custom-call`` that XLA cannot fuse across, so ``gate`` must be written to memory for the host
to read: the chain becomes two kernels (``sigmoid`` then ``multiply-add``), with an extra
``f32[32,128]`` array written and read back. The outputs agree (to float rounding); the kernel
count and bytes moved do not. That difference is what ``hloscope diff samples/fusion_refactor.py:fused
samples/fusion_refactor.py:split`` shows.

Why not ``jax.lax.optimization_barrier``, the textbook way to stop fusion? XLA:GPU and XLA:TPU keep
the barrier through fusion, but XLA:CPU deletes every barrier early in its pipeline (the
``cse_barrier_expander`` pass, before fusion), so on CPU a barrier changes the HLO before
optimization and nothing after it. A host callback splits the chain on every backend.

``example_args()`` gives arguments for either function. Importing this module does no JAX work.
"""

from __future__ import annotations

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np

#: Mean gate activation seen by each call of :func:`split` (the callback's side effect).
GATE_MEANS: deque[float] = deque(maxlen=100)


def _log_gate(gate: np.ndarray) -> None:
    GATE_MEANS.append(float(np.mean(gate)))


@jax.jit
def fused(x: jax.Array, w: jax.Array) -> jax.Array:
    """Dense layer + elementwise chain; XLA fuses the chain into one kernel."""
    y = x @ w
    gate = jax.nn.sigmoid(1.702 * y)
    return y * gate + 0.1 * y


@jax.jit
def split(x: jax.Array, w: jax.Array) -> jax.Array:
    """The same layer, with a host callback halfway through the chain that XLA cannot fuse across."""
    y = x @ w
    gate = jax.nn.sigmoid(1.702 * y)
    jax.debug.callback(_log_gate, gate)  # gate must now exist in memory: the chain is cut here
    return y * gate + 0.1 * y


def example_args(batch: int = 32, width: int = 128, seed: int = 0) -> tuple[jax.Array, jax.Array]:
    """Arguments ``(x, w)`` for :func:`fused` and :func:`split`: ``x[batch, width]``, ``w[width, width]``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, width)).astype(np.float32)
    w = rng.normal(0.0, width**-0.5, size=(width, width)).astype(np.float32)
    return jnp.asarray(x), jnp.asarray(w)


def main() -> None:
    args = example_args()
    difference = float(jnp.max(jnp.abs(fused(*args) - split(*args))))
    jax.effects_barrier()  # wait for the callback
    print(f"max |fused - split| = {difference:.3g}; mean gate logged by split: {GATE_MEANS[-1]:.4f}")


if __name__ == "__main__":
    main()
