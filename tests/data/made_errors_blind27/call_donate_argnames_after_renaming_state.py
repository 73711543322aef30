import jax
import jax.numpy as jnp
from functools import partial


# the argument was renamed from `state` to `train_state` in a refactor
@partial(jax.jit, donate_argnames="state")
def train_step(train_state, batch):
    grads = jax.grad(lambda p: jnp.mean((batch @ p["w"]) ** 2))(train_state)
    return jax.tree.map(lambda p, g: p - 0.01 * g, train_state, grads)


train_state = {"w": jnp.ones((32, 8))}
train_state = train_step(train_state, jnp.ones((16, 32)))
print(train_state["w"][0, :3])
