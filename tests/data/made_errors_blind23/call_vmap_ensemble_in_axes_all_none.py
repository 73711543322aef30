import jax
import jax.numpy as jnp


def predict(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


key = jax.random.key(0)
ensemble = {"w": jax.random.normal(key, (5, 16, 1)), "b": jnp.zeros((5, 1))}  # 5 members
x = jnp.ones((32, 16))
# every member on the same batch
preds = jax.vmap(predict, in_axes=(None, None))(ensemble, x)
print(preds.mean(0).shape)
