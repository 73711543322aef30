"""A program for the dump-option tests: a matmul chain plus a 4096-value constant table (which a
dump prints as ``{...}`` unless ``xla_dump_large_constants`` is on)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

TABLE = np.arange(4096, dtype=np.float32)


def table_step(x: jax.Array) -> jax.Array:
    return (x @ x.T @ x + TABLE).sum()


def example_args() -> dict[str, Any]:
    return {"table_step": lambda: (jnp.ones((256, 4096), jnp.float32),)}
