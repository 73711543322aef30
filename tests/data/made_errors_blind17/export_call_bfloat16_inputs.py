import jax
import jax.numpy as jnp
from jax import export


def predict(x):
    return jnp.tanh(x @ jnp.ones((4, 2)))


exp = export.export(jax.jit(predict))(jax.ShapeDtypeStruct((8, 4), jnp.float32))
served = export.deserialize(exp.serialize())
# the serving frontend casts requests to bfloat16
print(served.call(jnp.ones((8, 4), jnp.bfloat16)))
