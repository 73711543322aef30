import jax
import jax.numpy as jnp
import numpy as np


def host_lookup(ids):
    ids = np.asarray(ids)
    found = ids < 1000
    return np.where(found, ids * 2.0, 0.0).astype(np.float32), found


@jax.jit
def features(ids):
    out = jax.ShapeDtypeStruct(ids.shape, jnp.float32)
    return jax.pure_callback(host_lookup, out, ids)


print(features(jnp.array([3, 1500, 7])))
