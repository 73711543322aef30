import jax
import jax.numpy as jnp


def loss_fn(params, x, y):
    w1, w2 = params
    return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)

@jax.jit
def per_example_grads(params, xs, ys):
    return jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))(params, xs, ys)

params = (jnp.full((4096, 4096), 0.01), jnp.full((4096, 1024), 0.01))
xs, ys = jnp.ones((1024, 4096)), jnp.ones((1024, 1024))
grads = per_example_grads(params, xs, ys)
clipped_norms = [jnp.linalg.norm(g.reshape(g.shape[0], -1), axis=1) for g in grads]
print([n.max() for n in clipped_norms])
