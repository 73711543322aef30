import jax
import jax.numpy as jnp
from jax import export


def encoder(tokens, mask):
    return (tokens * mask).sum(-1)


(batch,) = export.symbolic_shape("batch")
(seq,) = export.symbolic_shape("seq")
tokens = jax.ShapeDtypeStruct((batch, seq), jnp.float32)
mask = jax.ShapeDtypeStruct((batch, seq), jnp.float32)
exp = export.export(jax.jit(encoder))(tokens, mask)
