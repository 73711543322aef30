import jax
import jax.numpy as jnp


def loss_fn(tokens, embedding):
    return jnp.mean(embedding[tokens] ** 2)

tokens = jnp.zeros((8, 16), jnp.int32)
embedding = jnp.ones((32000, 256), jnp.float32)
grads = jax.grad(loss_fn)(tokens, embedding)
print(grads.shape)
