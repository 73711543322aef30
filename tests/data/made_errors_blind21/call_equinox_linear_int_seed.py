import jax
import jax.numpy as jnp
import equinox as eqx


class Regressor(eqx.Module):
    hidden: eqx.nn.Linear
    out: eqx.nn.Linear

    def __init__(self, seed):
        self.hidden = eqx.nn.Linear(13, 64, key=seed)
        self.out = eqx.nn.Linear(64, 1, key=seed + 1)

    def __call__(self, x):
        return self.out(jax.nn.relu(self.hidden(x)))


model = Regressor(seed=42)
print(jax.vmap(model)(jnp.ones((5, 13))).shape)
