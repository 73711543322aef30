import jax
import jax.numpy as jnp


@jax.jit
def dense(x, w, activation):
    y = x @ w
    return jax.nn.relu(y) if activation == "relu" else jnp.tanh(y)

print(dense(jnp.ones((64, 512)), jnp.ones((512, 256)), "relu").shape)
