import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def train_step(w, tokens):
    h = jnp.take(w, tokens, axis=0)
    return w - 0.01 * jax.grad(lambda w: jnp.mean(jnp.take(w, tokens, axis=0) ** 2))(w), h.mean()

w = jnp.ones((1000, 128))
for seq_len in (37, 52, 41):
    tokens = jnp.arange(8 * seq_len).reshape(8, seq_len) % 1000
    w, loss = train_step(w, tokens)
    print(seq_len, loss)
