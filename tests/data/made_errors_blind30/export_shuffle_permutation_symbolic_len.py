import jax
import jax.numpy as jnp
from jax import export


def shuffled_tokens(key, tokens):
    # the served augmentation shuffles the token order
    perm = jax.random.permutation(key, tokens.shape[0])
    return tokens[perm]


spec = jax.ShapeDtypeStruct(export.symbolic_shape("n"), jnp.int32)
exported = export.export(jax.jit(shuffled_tokens))(jax.random.key(0), spec)
print(exported.out_avals)
