import jax
import jax.numpy as jnp


@jax.jit
def enqueue(bank, ptr, features):
    # MoCo-style queue of negatives: overwrite the oldest entries with this batch
    idx = (ptr + jnp.arange(features.shape[0])) % bank.shape[0]
    return bank.at[idx].set(features), (ptr + features.shape[0]) % bank.shape[0]


bank = jnp.zeros((4096, 128))  # sized for the 128-d projection head
features = jnp.ones((32, 64))  # the head was narrowed to 64 for this run
bank, ptr = enqueue(bank, 0, features)
print(ptr)
