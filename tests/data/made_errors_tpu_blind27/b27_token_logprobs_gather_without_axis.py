import jax
import jax.numpy as jnp


@jax.jit
def sequence_logprob(logits, tokens):
    logprobs = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logprobs, tokens, axis=-1)
    return picked.sum(axis=1)

logits = jnp.zeros((8, 512, 32000), jnp.float32)
tokens = jnp.zeros((8, 512), jnp.int32)
print(sequence_logprob(logits, tokens))
