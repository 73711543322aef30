import jax
import jax.numpy as jnp


@jax.jit
def class_balance(labels):
    classes = jnp.unique(labels)
    counts = (labels[:, None] == classes[None, :]).sum(0)
    return counts / labels.shape[0]


batch_labels = jnp.array([0, 2, 2, 1, 0, 2, 2, 1])
print(class_balance(batch_labels))
