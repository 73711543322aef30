import jax
import jax.numpy as jnp


@jax.jit
def cross_entropy(logits, labels):
    targets = jax.nn.one_hot(labels, labels.max() + 1)
    return -jnp.mean(jnp.sum(targets * jax.nn.log_softmax(logits), axis=-1))

print(cross_entropy(jnp.zeros((64, 10)), jnp.arange(64) % 10))
