import jax
import jax.numpy as jnp


def sphere_sdf(x, y, z):
    return jnp.sqrt(x**2 + y**2 + z**2) - 0.5


# evaluate the signed distance field on a 4096^3 grid for marching cubes
axis = jnp.linspace(-1.0, 1.0, 4096)
x, y, z = jnp.meshgrid(axis, axis, axis, indexing="ij")
print(sphere_sdf(x, y, z).min())
