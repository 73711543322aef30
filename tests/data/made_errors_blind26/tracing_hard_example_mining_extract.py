import jax
import jax.numpy as jnp


@jax.jit
def ohem_loss(logits, labels, threshold=0.7):
    # online hard example mining: average only the examples the model still gets wrong
    nll = -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=-1)[:, 0]
    hard = jnp.extract(nll > threshold, nll)
    return hard.mean()


logits = jax.random.normal(jax.random.key(0), (128, 10))
labels = jnp.arange(128) % 10
print(ohem_loss(logits, labels))
