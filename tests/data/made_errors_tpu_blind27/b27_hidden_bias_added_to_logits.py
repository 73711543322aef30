import jax
import jax.numpy as jnp


@jax.jit
def mlp(params, x):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b1"]

params = {"w1": jnp.ones((784, 256)), "b1": jnp.zeros((256,)),
          "w2": jnp.ones((256, 10)), "b2": jnp.zeros((10,))}
print(mlp(params, jnp.ones((32, 784))).shape)
