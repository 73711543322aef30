import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def nll(logits, labels):
    log_probs = jax.nn.log_softmax(logits)
    picked = log_probs[jnp.arange(labels.shape[0]), labels]
    return -picked.mean()


logits = jax.device_put(jnp.zeros((32, 10)), P("data"))
labels = jax.device_put(jnp.arange(32) % 10, P("data"))
print(nll(logits, labels))
