# XLA_FLAGS extra: ''; env: {}
import jax
import jax.numpy as jnp


@jax.jit
def f(x, rows, updates):
    ordered = jnp.sort(x, axis=0)
    order = jnp.argsort(x[:, 0])
    picked = x[rows]
    added = x.at[rows].add(updates)
    strided = x.T[1:9:3]
    joined = jnp.concatenate([x, -x], axis=0)
    padded = jnp.pad(x, ((0, 1), (2, 0)))
    turned = jnp.flip(jnp.roll(x, 2, axis=0), axis=1)
    window = jax.lax.dynamic_slice(x, (rows[1], 0), (3, 2))
    written = jax.lax.dynamic_update_slice(x, window + 1, (0, 2))
    top = jax.lax.top_k(x, 2)[1]
    running = jnp.cumsum(x, axis=0)
    pooled = jax.lax.reduce_window(x, 0.0, jax.lax.add, (3, 1), (1, 1), "VALID")
    return ordered, order, picked, added, strided, joined, padded, turned, written, top, \
        running, pooled


f(jnp.arange(60.0).reshape(10, 6), jnp.array([0, 4, 7]), jnp.ones((3, 6)))
