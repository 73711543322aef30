import jax
import jax.numpy as jnp
from jax import export


@jax.jit
def smooth(signal):
    kernel = jnp.ones(9) / 9
    return jnp.convolve(signal, kernel, mode="same")


(t,) = export.symbolic_shape("t")
exp = export.export(smooth)(jax.ShapeDtypeStruct((t,), jnp.float32))
print(exp.out_avals)
