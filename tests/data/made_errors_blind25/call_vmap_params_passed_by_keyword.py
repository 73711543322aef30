import jax
import jax.numpy as jnp


def predict(x, params):
    return jax.nn.softmax(x @ params["w"] + params["b"])


params = {"w": jnp.zeros((16, 4)), "b": jnp.zeros(4)}
batch = jnp.ones((32, 16))
probs = jax.vmap(predict, in_axes=(0, None))(batch, params=params)
print(probs.shape)
