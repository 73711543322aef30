import jax
import jax.numpy as jnp


def encode(params, tokens):
    x = params["embed"][tokens]  # (batch, time, dim)
    x = x.mean(axis=1)  # pooled too early: (batch, dim)
    return x + params["pos"]


params = {"embed": jnp.ones((1000, 256)), "pos": jnp.zeros((128, 256))}
print(jax.jit(encode)(params, jnp.ones((32, 128), jnp.int32)).shape)
