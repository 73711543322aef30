import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))
data_sharding = NamedSharding(mesh, P("data"))

def predict(params, x):
    return x @ params

predict_jit = jax.jit(predict, in_shardings=(data_sharding,))
print(predict_jit(jnp.ones((512, 10)), jnp.ones((64, 512))).shape)
