import jax
import jax.numpy as jnp

from jax import export

def loss(logits, labels):
    log_probs = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], 1))

batch, = export.symbolic_shape("batch")
exported = export.export(jax.jit(loss), platforms=("tpu",))(
    jax.ShapeDtypeStruct((batch, 1000), jnp.float32), jax.ShapeDtypeStruct((batch,), jnp.int32))
labels = jnp.arange(64) % 1000
last_logits = jnp.zeros((16, 1000), jnp.float32)
print(exported.call(last_logits, labels))
