import jax
import jax.numpy as jnp

import numpy as np

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def masked_mean_loss(logits, mask):
    per_token = jax.nn.logsumexp(logits, axis=-1)
    return (per_token * mask).sum() / mask.sum()


for step in range(4):
    logits = jnp.ones((8, 32, 100))
    # the packed loader gives a bool mask, the bucketed one an int32 mask
    mask = np.ones((8, 32), bool) if step % 2 == 0 else np.ones((8, 32), np.int32)
    print(masked_mean_loss(logits, mask))
