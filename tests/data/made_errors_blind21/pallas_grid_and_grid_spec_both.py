import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


spec = pl.BlockSpec((128, 128), lambda i: (i, 0))
grid_spec = pl.GridSpec(grid=(4,), in_specs=[spec], out_specs=spec)
out = pl.pallas_call(
    scale_kernel,
    out_shape=jax.ShapeDtypeStruct((512, 128), jnp.float32),
    grid=(4,),
    grid_spec=grid_spec,
    interpret=True,
)(jnp.ones((512, 128)))
print(out.shape)
