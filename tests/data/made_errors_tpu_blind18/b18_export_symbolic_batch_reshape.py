import jax
import jax.numpy as jnp

from jax import export

def pooled_blocks(x):
    if x.shape[0] % 128 != 0:
        x = jnp.pad(x, ((0, 128 - x.shape[0] % 128), (0, 0)))
    return x.reshape(-1, 128, x.shape[1]).sum(axis=1)

batch = export.symbolic_shape("b")[0]
exported = export.export(jax.jit(pooled_blocks))(jax.ShapeDtypeStruct((batch, 256), jnp.float32))
print(exported.out_avals)
