import jax
import jax.numpy as jnp
import optax


@jax.jit
def loss_fn(logits, labels):
    # the number of classes read off the labels of the batch
    targets = jax.nn.one_hot(labels, labels.max() + 1)
    return optax.softmax_cross_entropy(logits, targets).mean()


print(loss_fn(jnp.zeros((4, 5)), jnp.array([0, 4, 2, 1])))
