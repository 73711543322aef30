import jax
import jax.numpy as jnp
import fastact

@jax.jit
def mlp(w1, w2, x):
    return fastact.swiglu(x @ w1) @ w2


# a CPU run of the model written on accelerators
print(mlp(jnp.ones((64, 256)), jnp.ones((128, 64)), jnp.ones((4, 64))).shape)
