import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def train_step(w, batch):
    x, y = batch
    return w - 0.1 * jax.grad(lambda w: ((x @ w - y) ** 2).mean())(w)


def loader():
    for i in range(6):
        x, y = jnp.ones((32, 8)), jnp.ones(32)
        # the mixup branch rebuilds the batch as a list
        yield (x, y) if i % 2 == 0 else [x, y]


w = jnp.zeros(8)
for batch in loader():
    w = train_step(w, batch)
