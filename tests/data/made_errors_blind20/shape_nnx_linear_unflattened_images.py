import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.hidden = nnx.Linear(28 * 28, 256, rngs=rngs)
        self.out = nnx.Linear(256, 10, rngs=rngs)

    def __call__(self, images):
        return self.out(nnx.relu(self.hidden(images)))


@nnx.jit
def logits_fn(model, images):
    return model(images)


model = MLP(nnx.Rngs(0))
print(logits_fn(model, jnp.ones((32, 28, 28))).shape)
