import jax
import jax.numpy as jnp


def predict(w, x):
    return jax.nn.relu(x @ w)

w = jnp.ones((512, 10), jnp.float32)
batch = jnp.ones((32, 512), jnp.float32)
out = jax.vmap(predict)(w, batch)
print(out.shape)
