import jax
import jax.numpy as jnp


max_len = 4096
hidden = jnp.ones((256, 3500, 1024), jnp.float32)
targets = jnp.ones((256, 3500, 1024), jnp.float32)
pad = ((0, 0), (0, max_len - hidden.shape[1]), (0, 0))
hidden_padded = jnp.pad(hidden, pad)
print("hidden padded", hidden_padded.nbytes / 2**30, "GiB")
targets_padded = jnp.pad(targets, pad)
print("targets padded", targets_padded.nbytes / 2**30, "GiB")
