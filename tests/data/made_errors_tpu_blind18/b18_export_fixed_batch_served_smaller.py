import jax
import jax.numpy as jnp

from jax import export

def classify(x):
    return jax.nn.softmax(x @ jnp.full((784, 10), 0.01), axis=-1)

exported = export.export(jax.jit(classify))(jax.ShapeDtypeStruct((32, 784), jnp.float32))
print(exported.call(jnp.ones((8, 784))).shape)
