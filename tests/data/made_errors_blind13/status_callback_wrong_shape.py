import jax
import jax.numpy as jnp
import numpy as np


def host_topk(x):
    return np.sort(np.asarray(x))[-3:]


@jax.jit
def top_scores(x):
    return jax.pure_callback(host_topk, jax.ShapeDtypeStruct((5,), x.dtype), x)


print(top_scores(jnp.arange(10.0)))
