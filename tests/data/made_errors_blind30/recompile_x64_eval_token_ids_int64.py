import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)  # needed by the metrics code for exact counts
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def next_token_logits(emb, token_ids):
    return emb[token_ids].mean(axis=1) @ emb.T


emb = jnp.ones((1000, 64), jnp.float32)
train_batch = jnp.ones((8, 32), jnp.int32)  # the training loader casts to int32
next_token_logits(emb, train_batch)
for _ in range(3):
    eval_batch = np.ones((8, 32), dtype=np.int64)  # the eval loader keeps numpy's int64
    logits = next_token_logits(emb, eval_batch)
print(logits.shape)
