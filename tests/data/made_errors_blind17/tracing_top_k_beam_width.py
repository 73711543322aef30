import jax
import jax.numpy as jnp


@jax.jit
def beam_step(log_probs, beam_width):
    flat = log_probs.reshape(-1)
    scores, idx = jax.lax.top_k(flat, beam_width)
    return scores, idx // log_probs.shape[-1]


log_probs = jax.nn.log_softmax(jnp.ones((4, 100)))
print(beam_step(log_probs, 4))
