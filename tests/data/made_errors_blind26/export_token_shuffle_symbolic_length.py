import jax
import jax.numpy as jnp
from jax import export


def shuffle_tokens(key, token_ids):
    # the denoising objective: permute the tokens of the sentence
    perm = jax.random.permutation(key, token_ids.shape[0])
    return token_ids[perm]


t, = export.symbolic_shape("t")
exp = export.export(jax.jit(shuffle_tokens))(
    jax.ShapeDtypeStruct((2,), jnp.uint32), jax.ShapeDtypeStruct((t,), jnp.int32)
)
print(exp.out_avals)
