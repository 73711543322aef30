import jax
import jax.numpy as jnp

mesh = jax.make_mesh((4,), ("data",))
print(mesh)
