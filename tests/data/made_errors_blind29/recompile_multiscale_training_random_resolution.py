import jax
import jax.numpy as jnp
import random

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def train_step(w, images):
    def loss(w):
        return jnp.mean(jnp.tanh(images.mean(axis=(1, 2)) @ w) ** 2)
    return w - 0.1 * jax.grad(loss)(w)


w = jnp.ones((3, 10))
random.seed(0)
for step in range(4):
    # multi-scale training: each batch is resized to a random resolution
    size = random.choice([224, 256, 288, 320, 352])
    w = train_step(w, jnp.ones((8, size, size, 3)))
print(w.shape)
