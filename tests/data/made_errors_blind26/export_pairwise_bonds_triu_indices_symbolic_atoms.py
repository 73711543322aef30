import jax
import jax.numpy as jnp
from jax import export


def pair_distances(positions):
    # every atom pair once, for the interatomic potential
    i, j = jnp.triu_indices(positions.shape[0], k=1)
    return jnp.linalg.norm(positions[i] - positions[j], axis=-1)


n, = export.symbolic_shape("n")
exp = export.export(jax.jit(pair_distances))(jax.ShapeDtypeStruct((n, 3), jnp.float32))
print(exp.out_avals)
