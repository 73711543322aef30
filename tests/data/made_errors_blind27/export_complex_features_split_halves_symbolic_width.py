import jax
import jax.numpy as jnp
from jax import export


def magnitude(features):
    # the front end packs real and imaginary parts side by side
    real, imag = jnp.split(features, 2, axis=-1)
    return jnp.sqrt(real**2 + imag**2)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("batch, width"), jnp.float32)
exported = export.export(jax.jit(magnitude))(spec)
print(exported.out_avals)
