import jax
import jax.numpy as jnp


def dense(params, x):
    return jax.nn.gelu(x @ params["kernel"] + params["bias"])

params = {"kernel": jnp.ones((512, 768)), "bias": jnp.zeros(512)}
hidden = jax.jit(dense)(params, jnp.ones((32, 768)))
print(hidden.shape)
