import jax
import jax.numpy as jnp
from functools import partial

from jax import export


@partial(jax.jit, static_argnames="training")
def forward(x, training=False):
    return jnp.tanh(x) * (0.9 if training else 1.0)


blob = export.export(forward)(jnp.ones((2, 4)), training=False).serialize()
served = export.deserialize(blob)
print(served.call(jnp.ones((2, 4)), training=False))
