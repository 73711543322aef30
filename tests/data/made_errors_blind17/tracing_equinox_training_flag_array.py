import jax
import jax.numpy as jnp
import equinox as eqx


class Block(eqx.Module):
    linear: eqx.nn.Linear
    training: jax.Array

    def __init__(self, key):
        self.linear = eqx.nn.Linear(8, 8, key=key)
        self.training = jnp.array(True)

    def __call__(self, x, key):
        x = self.linear(x)
        if self.training:
            x = x * jax.random.bernoulli(key, 0.9, x.shape) / 0.9
        return x


@eqx.filter_jit
def forward(model, x, key):
    return model(x, key)


print(forward(Block(jax.random.key(0)), jnp.ones(8), jax.random.key(1)))
