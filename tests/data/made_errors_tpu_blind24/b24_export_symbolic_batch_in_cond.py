import jax
import jax.numpy as jnp

from jax import export

def classify(x):
    return jax.lax.cond(x.shape[0] > 16, lambda: x.mean(0), lambda: x[0])

batch, = export.symbolic_shape("batch")
exported = export.export(jax.jit(classify), platforms=("tpu",))(
    jax.ShapeDtypeStruct((batch, 128), jnp.float32))
print(exported.in_avals)
