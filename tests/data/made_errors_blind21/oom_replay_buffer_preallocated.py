import jax
import jax.numpy as jnp


# DQN replay buffer: ten million Atari frames stacked four deep
buffer = jnp.zeros((10_000_000, 84, 84, 4), jnp.uint8)
print(buffer.shape, buffer[0, 0, 0, 0])
