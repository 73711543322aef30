import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.fc1 = nnx.Linear(32, 64, rngs=rngs)
        self.drop = nnx.Dropout(0.1)
        self.fc2 = nnx.Linear(64, 10, rngs=rngs)

    def __call__(self, x):
        return self.fc2(self.drop(nnx.relu(self.fc1(x))))


model = MLP(nnx.Rngs(0))
print(model(jnp.ones((4, 32))).shape)
