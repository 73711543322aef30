import jax
import jax.numpy as jnp
import equinox as eqx


class ConvBlock(eqx.Module):
    conv: eqx.nn.Conv2d
    norm: eqx.nn.BatchNorm

    def __init__(self, key):
        self.conv = eqx.nn.Conv2d(3, 16, 3, padding=1, key=key)
        self.norm = eqx.nn.BatchNorm(16, axis_name="batch")

    def __call__(self, x, state):
        h, state = self.norm(self.conv(x), state)
        return jax.nn.relu(h), state


block, state = eqx.nn.make_with_state(ConvBlock)(jax.random.key(0))
images = jnp.ones((8, 3, 32, 32))
out, state = jax.vmap(block, in_axes=(0, None), out_axes=(0, None))(images, state)
print(out.shape)
