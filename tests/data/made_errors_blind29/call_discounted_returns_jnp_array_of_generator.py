import jax
import jax.numpy as jnp

rewards = [0.0, 0.0, 1.0, 0.0, 5.0]
gamma = 0.99
# the discounted reward of every step of the episode
discounted = jnp.array(r * gamma**t for t, r in enumerate(rewards))
print(discounted.sum())
