import jax
import jax.numpy as jnp

from jax import export

def normalize_each(x):
    rows = [x[i] / jnp.linalg.norm(x[i]) for i in range(x.shape[0])]
    return jnp.stack(rows)

batch, = export.symbolic_shape("batch")
exported = export.export(jax.jit(normalize_each), platforms=("tpu",))(
    jax.ShapeDtypeStruct((batch, 128), jnp.float32))
print(exported.in_avals)
