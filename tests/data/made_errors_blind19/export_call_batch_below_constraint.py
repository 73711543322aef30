import jax
import jax.numpy as jnp
from jax import export


def classify(x, w):
    return jax.nn.softmax(x @ w)


# the serving stack only ever sends padded batches of at least 16
(b,) = export.symbolic_shape("b", constraints=("b >= 16",))
exp = export.export(jax.jit(classify))(
    jax.ShapeDtypeStruct((b, 32), jnp.float32), jax.ShapeDtypeStruct((32, 10), jnp.float32)
)
served = export.deserialize(exp.serialize())
# ... but the health check sends a batch of 8
print(served.call(jnp.ones((8, 32)), jnp.ones((32, 10))).shape)
