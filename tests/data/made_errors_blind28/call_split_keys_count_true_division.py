import jax
import jax.numpy as jnp

num_envs = 16
key = jax.random.key(0)
# one key per pair of environments
env_keys = jax.random.split(key, num_envs / 2)
print(env_keys.shape)
