import jax
import jax.numpy as jnp
from jax import export


def model(x):
    return jnp.tanh(x @ jnp.ones((3, 2)))


blob = export.export(jax.jit(model))(jnp.ones((4, 3))).serialize()
restored = export.deserialize(blob)
print(restored.call(jnp.ones((8, 3))))
