import jax
import jax.numpy as jnp


VOCAB = 256_000

def lm_loss(w_out, hidden, labels):
    logits = (hidden @ w_out).astype(jnp.float32)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))

w_out = jnp.full((1024, VOCAB), 0.01, jnp.bfloat16)
hidden = jnp.ones((16 * 2048, 1024), jnp.bfloat16)
labels = jnp.arange(16 * 2048, dtype=jnp.int32) % VOCAB
grad_fn = jax.jit(jax.value_and_grad(lm_loss))
loss, g = grad_fn(w_out, hidden, labels)
print(loss)
