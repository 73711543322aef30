import jax
import jax.numpy as jnp
import optax


def bce_loss(params, x, y):
    logits = x @ params["w"] + params["b"]
    # the head is one logit per example: drop its last axis to match the labels
    return optax.sigmoid_binary_cross_entropy(jnp.squeeze(logits, axis=-1), y).mean()


params = {"w": jnp.zeros((16, 2)), "b": jnp.zeros(2)}  # built with num_classes=2
print(jax.jit(jax.grad(bce_loss))(params, jnp.ones((32, 16)), jnp.ones(32))["w"].shape)
