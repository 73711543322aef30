import jax
import jax.numpy as jnp


vocab, smoothing = 128000, 0.1

@jax.jit
def make_targets(labels):
    one_hot = jax.nn.one_hot(labels, vocab, dtype=jnp.float32)
    return one_hot * (1.0 - smoothing) + smoothing / vocab

labels = jnp.zeros((32, 2048), jnp.int32)
targets = make_targets(labels)
print(targets.shape)
