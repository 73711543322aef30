import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.tree_util.register_pytree_node_class
class TrainState:
    def __init__(self, params, step):
        self.params, self.step = params, step

    def tree_flatten(self):
        return (self.params,), self.step  # the step counter kept as static metadata

    @classmethod
    def tree_unflatten(cls, step, children):
        return cls(children[0], step)


@jax.jit
def train_step(state, x):
    g = jax.grad(lambda p: jnp.mean((x @ p) ** 2))(state.params)
    return TrainState(state.params - 0.01 * g, state.step + 1)


state = TrainState(jnp.ones(8), 0)
for _ in range(4):
    state = train_step(state, jnp.ones((16, 8)))
print(state.step)
