import jax
import jax.numpy as jnp
from flax import nnx


class Block(nnx.Module):
    def __init__(self, rngs):
        self.conv = nnx.Conv(64, 64, kernel_size=(3, 3), rngs=rngs)
        self.norm = nnx.BatchNorm(64, rngs=rngs)

    def __call__(self, x):
        return self.norm(jax.nn.relu(self.conv(x)))


model = Block(nnx.Rngs(0))
# the feature maps were converted from a PyTorch checkpoint's activations: (N, C, H, W)
features = jnp.ones((8, 64, 32, 32))
print(model.norm(features).shape)
