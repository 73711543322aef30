import jax
import jax.numpy as jnp
from flax import nnx


class Stem(nnx.Module):
    def __init__(self, rngs):
        self.conv = nnx.Conv(3, 32, kernel_size=(3, 3), strides=2, rngs=rngs)

    def __call__(self, x):
        return nnx.relu(self.conv(x))


model = Stem(nnx.Rngs(0))
xray_batch = jnp.ones((8, 224, 224, 1))  # chest x-rays: one channel
print(model(xray_batch).shape)
