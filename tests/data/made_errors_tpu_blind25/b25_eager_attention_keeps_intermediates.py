import jax
import jax.numpy as jnp


q = jnp.ones((32768, 128), jnp.float32)
k = jnp.ones((32768, 128), jnp.float32)
v = jnp.ones((32768, 128), jnp.float32)
scores = (q @ k.T) * 0.125
shifted = scores - scores.max(axis=-1, keepdims=True)
weights = jnp.exp(shifted)
print("weights", weights.nbytes / 2**30, "GiB")
probs = weights / weights.sum(axis=-1, keepdims=True)
out = probs @ v
print(out.shape)
