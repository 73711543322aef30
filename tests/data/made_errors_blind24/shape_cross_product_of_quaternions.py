import jax
import jax.numpy as jnp


@jax.jit
def angular_velocity_error(q_pred, q_true):
    # rotations are stored as (w, x, y, z) quaternions
    return jnp.linalg.norm(jnp.cross(q_pred, q_true), axis=-1)


print(angular_velocity_error(jnp.ones((16, 4)), jnp.ones((16, 4))))
