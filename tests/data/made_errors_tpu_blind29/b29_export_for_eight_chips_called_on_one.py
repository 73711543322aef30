import jax
import jax.numpy as jnp

from jax import export
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

pod = AbstractMesh((8,), ("data",))

def predict(x, w):
    return jnp.tanh(x @ w)

exported = export.export(jax.jit(predict))(
    jax.ShapeDtypeStruct((256, 128), jnp.float32, sharding=NamedSharding(pod, P("data"))),
    jax.ShapeDtypeStruct((128, 64), jnp.float32, sharding=NamedSharding(pod, P())))
print("exported for", exported.nr_devices, "devices")
out = exported.call(jnp.ones((256, 128)), jnp.ones((128, 64)))
print(out.shape)
