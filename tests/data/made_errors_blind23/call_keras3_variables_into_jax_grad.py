import os

os.environ["KERAS_BACKEND"] = "jax"

import jax
import jax.numpy as jnp
import keras

model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(1)])


def loss_fn(weights, x, y):
    # a hand-written JAX training loop around the Keras model
    return jnp.mean((model(x) - y) ** 2)


grads = jax.grad(loss_fn)(model.trainable_variables, jnp.ones((8, 16)), jnp.ones((8, 1)))
print(jax.tree.map(jnp.shape, grads))
