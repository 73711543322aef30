import jax
import jax.numpy as jnp


@jax.jit
def sinkhorn_cost(x, y):
    cost = jnp.sum(x**2, 1)[:, None] + jnp.sum(y**2, 1)[None, :] - 2 * x @ y.T
    kernel = jnp.exp(-cost / 0.05)

    def body(i, uv):
        u, v = uv
        u = 1.0 / (kernel @ v)
        return u, 1.0 / (kernel.T @ u)

    ones = (jnp.ones(x.shape[0]), jnp.ones(y.shape[0]))
    u, v = jax.lax.fori_loop(0, 100, body, ones)
    return jnp.sum(u[:, None] * kernel * v[None, :] * cost)

source = jax.random.normal(jax.random.key(0), (65536, 3))
target = jax.random.normal(jax.random.key(1), (65536, 3)) + 1.0
print(sinkhorn_cost(source, target))
