import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def norm_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)


x = jnp.ones((16, 256))
out = pl.pallas_call(norm_kernel,
                     # keep the whole activation in VMEM
                     in_specs=[pltpu.VMEM((16, 256), jnp.float32)],
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
print(out.sum())
