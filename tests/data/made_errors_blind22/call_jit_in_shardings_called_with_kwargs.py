import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))
replicated = NamedSharding(mesh, P())


def loss_fn(params, images, labels):
    logits = images @ params
    return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 10)).sum(-1).mean()


loss = jax.jit(loss_fn, in_shardings=(replicated, batch_sharding, batch_sharding))
params = jnp.zeros((784, 10))
print(loss(params, images=jnp.ones((64, 784)), labels=jnp.zeros(64, jnp.int32)))
