import jax
import jax.numpy as jnp
import optax


@jax.jit
def seq_loss(logits, targets):
    # logits: (batch, time, vocab); the targets come one-hot from the data pipeline
    return optax.softmax_cross_entropy(logits, targets).mean()


logits = jnp.zeros((32, 128, 1000))
targets = jax.nn.one_hot(jnp.zeros(32, jnp.int32), 1000)  # (batch, vocab): no time axis
print(seq_loss(logits, targets))
