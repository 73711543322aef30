import jax
import jax.numpy as jnp

jax.config.update("jax_debug_key_reuse", True)


def dropout(x, key, rate=0.1):
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def mlp(params, x, key):
    h = dropout(jax.nn.relu(x @ params["w1"]), key)
    return dropout(h @ params["w2"], key)


params = {"w1": jnp.ones((8, 32)), "w2": jnp.ones((32, 4))}
print(mlp(params, jnp.ones((2, 8)), jax.random.key(0)))
