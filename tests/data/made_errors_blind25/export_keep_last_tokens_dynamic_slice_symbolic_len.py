import jax
import jax.numpy as jnp
from jax import export

CONTEXT = 128


@jax.jit
def recent_context(token_ids):
    # the model only attends to the most recent CONTEXT tokens of the conversation
    start = token_ids.shape[1] - CONTEXT
    return jax.lax.dynamic_slice_in_dim(token_ids, start, CONTEXT, axis=1)


(t,) = export.symbolic_shape("t")  # conversations of any length
exp = export.export(recent_context)(jax.ShapeDtypeStruct((1, t), jnp.int32))
print(exp.out_avals)
