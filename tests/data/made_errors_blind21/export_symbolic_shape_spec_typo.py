import jax
import jax.numpy as jnp
from jax import export


def encoder(tokens):
    return jnp.tanh(tokens @ jnp.ones((256, 256)))


batch, seq = export.symbolic_shape("batch, seq,, ")
exp = export.export(jax.jit(encoder))(jax.ShapeDtypeStruct((batch, seq, 256), jnp.float32))
print(exp.in_avals)
