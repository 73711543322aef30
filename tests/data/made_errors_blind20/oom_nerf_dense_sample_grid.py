import jax
import jax.numpy as jnp


@jax.jit
def density_grid(w):
    # query the field on a dense 4096^3 grid to extract a mesh
    axis = jnp.linspace(-1.0, 1.0, 4096)
    xyz = jnp.stack(jnp.meshgrid(axis, axis, axis, indexing="ij"), axis=-1)
    return jax.nn.relu(xyz @ w).sum(-1)


grid = density_grid(jnp.ones((3, 16)))
print(grid.shape, grid[0, 0, 0])
