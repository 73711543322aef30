import jax
import jax.numpy as jnp
from jax import export


def mean_pool(token_states):
    return token_states.sum(axis=0) / float(token_states.shape[0])


(seq,) = export.symbolic_shape("seq")
exp = export.export(jax.jit(mean_pool))(jax.ShapeDtypeStruct((seq, 256), jnp.float32))
print(exp.out_avals)
