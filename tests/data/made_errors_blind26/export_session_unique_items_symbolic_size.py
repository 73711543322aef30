import jax
import jax.numpy as jnp
from jax import export


def session_features(item_ids):
    # the distinct items of a browsing session of any length, padded with -1
    unique = jnp.unique(item_ids, size=item_ids.shape[0], fill_value=-1)
    return unique, (unique >= 0).sum()


s, = export.symbolic_shape("s")
exp = export.export(jax.jit(session_features))(jax.ShapeDtypeStruct((s,), jnp.int32))
print(exp.out_avals)
