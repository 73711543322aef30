import jax
import jax.numpy as jnp


@jax.jit
def hinge_loss(scores, labels):
    margins = 1.0 - scores * labels
    return sum(max(m, 0.0) for m in margins) / len(margins)


scores = jnp.array([0.3, -1.2, 2.0, 0.9])
labels = jnp.array([1.0, -1.0, 1.0, -1.0])
print("hinge", hinge_loss(scores, labels))
