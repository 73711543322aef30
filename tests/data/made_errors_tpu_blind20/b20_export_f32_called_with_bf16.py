import jax
import jax.numpy as jnp

from jax import export

def classify(x):
    return jax.nn.softmax(x @ jnp.ones((256, 10), x.dtype))

exported = export.export(jax.jit(classify))(jax.ShapeDtypeStruct((32, 256), jnp.float32))
batch = jnp.ones((32, 256), jnp.bfloat16)
print(exported.call(batch).shape)
