import jax
import jax.numpy as jnp
from dataclasses import dataclass


@jax.tree_util.register_dataclass
@dataclass
class TrainState:
    params: jax.Array
    step: jax.Array
    run_name: str  # for the logger


@jax.jit
def train_step(state, batch):
    grads = jax.grad(lambda p: ((batch @ p) ** 2).mean())(state.params)
    return TrainState(state.params - 0.1 * grads, state.step + 1, state.run_name)


state = TrainState(jnp.ones(16), jnp.array(0), "resnet-lr3e-4")
state = train_step(state, jnp.ones((4, 16)))
print(state.step)
