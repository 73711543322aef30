import jax
import jax.numpy as jnp

def loss(w):
    return (w ** 2).sum()

w = jnp.ones(3)
dloss = jax.grad(loss(w))
