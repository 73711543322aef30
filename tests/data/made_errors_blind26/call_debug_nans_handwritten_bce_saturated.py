import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


def binary_cross_entropy(logits, labels):
    p = jax.nn.sigmoid(logits)
    return -jnp.mean(labels * jnp.log(p) + (1 - labels) * jnp.log(1 - p))


@jax.jit
def loss_fn(w, x, y):
    return binary_cross_entropy(x @ w, y)


x = jnp.ones((32, 16)) * 10.0  # unnormalised features: the logits saturate
print(loss_fn(jnp.ones(16), x, jnp.ones(32)))
