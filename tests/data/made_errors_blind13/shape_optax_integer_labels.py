import jax
import jax.numpy as jnp
import optax


def classifier_loss(w, x, labels):
    logits = x @ w
    return optax.softmax_cross_entropy(logits, labels).mean()


x = jnp.ones((32, 20))
w = jnp.zeros((20, 10))
labels = jnp.arange(32) % 10
loss, grads = jax.value_and_grad(classifier_loss)(w, x, labels)
