import jax
import jax.numpy as jnp
import optax


def sequence_loss(logits, labels):
    # the RNN runs time-major: logits are (time, batch, vocab); labels come (batch, time)
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()


logits = jnp.zeros((50, 8, 1000))
labels = jnp.zeros((8, 50), jnp.int32)
print(jax.jit(sequence_loss)(logits, labels))
