import jax
import jax.numpy as jnp


def loss_fn(params, batch):
    w1, w2 = params
    h = jax.nn.gelu(batch @ w1)
    return jnp.mean((h @ w2 - batch) ** 2)

@jax.jit
def accumulated_grads(params, microbatches):
    def body(acc, batch):
        grads = jax.grad(loss_fn)(params, batch)
        return jax.tree.map(jnp.add, acc, grads), None
    zeros = jax.tree.map(jnp.zeros_like, params)
    grads, _ = jax.lax.scan(body, zeros, microbatches)
    return grads

params = (jnp.full((1024, 16384), 0.01), jnp.full((16384, 1024), 0.01))
microbatches = jnp.ones((4, 262144, 1024))
grads = accumulated_grads(params, microbatches)
print(jax.tree.map(lambda g: float(jnp.abs(g).max()), grads))
