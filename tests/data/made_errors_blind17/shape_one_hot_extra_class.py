import jax
import jax.numpy as jnp
import optax

NUM_CLASSES = 11  # ten digits and a padding label


def loss_fn(params, x, labels):
    logits = x @ params["w"]
    targets = jax.nn.one_hot(labels, NUM_CLASSES)
    return optax.softmax_cross_entropy(logits, targets).mean()


params = {"w": jnp.zeros((16, 10))}
x = jnp.ones((32, 16))
labels = jnp.arange(32) % 10
grads = jax.jit(jax.grad(loss_fn))(params, x, labels)
