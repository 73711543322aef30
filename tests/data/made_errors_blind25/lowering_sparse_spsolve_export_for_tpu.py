import jax
import jax.numpy as jnp
from jax import export
from jax.experimental.sparse.linalg import spsolve


@jax.jit
def heat_step(data, indices, indptr, u):
    # implicit Euler: solve (I - dt L) u_next = u on the FEM mesh
    return spsolve(data, indices, indptr, u)


S = jax.ShapeDtypeStruct
exp = export.export(heat_step, platforms=["tpu"])(
    S((4096,), jnp.float32), S((4096,), jnp.int32), S((1025,), jnp.int32), S((1024,), jnp.float32)
)
open("heat_step.bin", "wb").write(exp.serialize())
