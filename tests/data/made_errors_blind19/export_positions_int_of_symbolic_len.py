import jax
import jax.numpy as jnp
from jax import export


def embed_with_positions(token_embeddings):
    seq_len = int(token_embeddings.shape[0])
    positions = jnp.arange(seq_len)[:, None] / 10000.0
    return token_embeddings + jnp.sin(positions)


(seq,) = export.symbolic_shape("seq")
exp = export.export(jax.jit(embed_with_positions))(jax.ShapeDtypeStruct((seq, 64), jnp.float32))
blob = exp.serialize()
