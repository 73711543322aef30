import jax
import jax.numpy as jnp


@jax.jit
def nearest_neighbour(points):
    d = jnp.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    return jnp.argsort(d, axis=1)[:, 1:6]


points = jax.random.normal(jax.random.key(0), (1_000_000, 3))
neighbours = nearest_neighbour(points)
print(neighbours[:3])
