import jax
import jax.numpy as jnp


@jax.jit
def add_frames(buffer, frames, index):
    return jax.lax.dynamic_update_slice(buffer, frames, (index, 0, 0))

policy_params = jnp.ones((640, 1024, 1024), jnp.float32)
buffer = jnp.zeros((1792, 1024, 1024), jnp.float32)
for step in range(4):
    frames = jnp.full((64, 1024, 1024), step, jnp.float32)
    buffer = add_frames(buffer, frames, step * 64)
    print("step", step, buffer[step * 64, 0, 0])
