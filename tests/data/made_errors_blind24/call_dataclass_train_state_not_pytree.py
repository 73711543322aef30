import jax
import jax.numpy as jnp
from dataclasses import dataclass


@dataclass
class TrainState:
    params: jax.Array
    step: int


@jax.jit
def train_step(state, batch):
    grads = jax.grad(lambda p: ((batch @ p) ** 2).mean())(state.params)
    return TrainState(state.params - 0.1 * grads, state.step + 1)


state = TrainState(jnp.ones(16), 0)
state = train_step(state, jnp.ones((4, 16)))
print(state.step)
