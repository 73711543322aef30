import jax
import jax.numpy as jnp
import optax


@jax.jit
def balanced_loss(logits, labels):
    # weight each class by the inverse of its frequency in this batch
    counts = jnp.bincount(labels)
    weights = labels.shape[0] / (counts[labels] * counts.shape[0])
    losses = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
    return (weights * losses).mean()


print(balanced_loss(jnp.zeros((64, 10)), jnp.arange(64) % 10))
