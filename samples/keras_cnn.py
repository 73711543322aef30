"""A small Keras CNN training step compiled by XLA through ``tf.function(jit_compile=True)``.

Two conv -> batch-norm -> ReLU -> max-pool stages and a dense classifier on 16x16 RGB images.
The step runs the model in training mode (so batch norm uses batch statistics and updates its
moving averages), takes gradients with ``tf.GradientTape`` and applies plain SGD with
``assign_sub``, all inside one XLA cluster: convolutions, reduce-windows, batch-norm arithmetic,
softmax cross-entropy, and their gradients.

    step, args = make()
    loss = step(*args)

Run it as a script to run one step (``python samples/keras_cnn.py``). Importing it does no
TensorFlow work (TensorFlow is imported inside :func:`make`).
"""

from __future__ import annotations

from typing import Any

LEARNING_RATE = 0.05


def build_model(image_size: int = 16, channels: int = 3, classes: int = 10) -> Any:
    """The Keras model: conv, batchnorm, pooling, dense."""
    import keras

    layers = keras.layers
    return keras.Sequential(
        [
            keras.Input((image_size, image_size, channels)),
            layers.Conv2D(8, 3, padding="same", use_bias=False),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.MaxPooling2D(2),
            layers.Conv2D(16, 3, padding="same", use_bias=False),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(classes),
        ],
        name="small_cnn",
    )


def make(batch: int = 8, image_size: int = 16, classes: int = 10, seed: int = 0) -> tuple[Any, tuple[Any, Any]]:
    """The compiled training step and example arguments ``(images, labels)`` for it.

    ``step(images, labels)`` runs one SGD step on the model's variables and returns the loss.
    """
    import keras
    import numpy as np
    import tensorflow as tf

    keras.utils.set_random_seed(seed)
    model = build_model(image_size, 3, classes)
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(jit_compile=True)
    def train_step(images: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_object(labels, logits)
        variables = model.trainable_variables
        for variable, grad in zip(variables, tape.gradient(loss, variables)):
            variable.assign_sub(LEARNING_RATE * grad)
        return loss

    rng = np.random.default_rng(seed)
    images = tf.constant(rng.normal(size=(batch, image_size, image_size, 3)).astype(np.float32))
    labels = tf.constant(rng.integers(0, classes, size=(batch,)).astype(np.int32))
    return train_step, (images, labels)


def main() -> None:
    step, args = make()
    print(f"loss after one step: {float(step(*args)):.4f}")


if __name__ == "__main__":
    main()
