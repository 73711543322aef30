import jax
import jax.numpy as jnp
import fastnorm


@jax.jit
def block(w, x):
    return fastnorm.rms_norm(x @ w) + x


# a laptop run of the model trained on the GPU cluster
print(block(jnp.eye(64), jnp.ones((4, 64))).shape)
