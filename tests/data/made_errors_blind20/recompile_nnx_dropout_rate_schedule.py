import jax
import jax.numpy as jnp
from flax import nnx

jax.config.update("jax_explain_cache_misses", True)


class Net(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(8, 8, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.dropout(self.linear(x))


@nnx.jit
def forward(model, x):
    return model(x)


model = Net(nnx.Rngs(0))
for step in range(5):
    # anneal the dropout rate as training goes on
    model.dropout.rate = 0.5 * (1 - step / 5)
    forward(model, jnp.ones((4, 8)))
