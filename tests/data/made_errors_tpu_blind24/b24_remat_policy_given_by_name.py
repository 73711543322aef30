import jax
import jax.numpy as jnp


def mlp_block(w, x):
    return jnp.tanh(x @ w)

block = jax.checkpoint(mlp_block, policy="dots_saveable")

def loss(w, x):
    return jnp.sum(block(w, x) ** 2)

grads = jax.jit(jax.grad(loss))(jnp.ones((256, 256)), jnp.ones((64, 256)))
print(grads.shape)
