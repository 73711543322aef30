import jax
import jax.numpy as jnp
from jax import export

CONTEXT = 512


def pad_prompt(token_ids):
    # right-pad the prompt to the model's fixed context
    return jnp.pad(token_ids, (0, CONTEXT - token_ids.shape[0]))


(n,) = export.symbolic_shape("n")
exp = export.export(jax.jit(pad_prompt))(jax.ShapeDtypeStruct((n,), jnp.int32))
print(exp.out_avals)
