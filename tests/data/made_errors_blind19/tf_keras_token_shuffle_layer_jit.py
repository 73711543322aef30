import numpy as np
import keras
import tensorflow as tf


class ShuffleTokens(keras.layers.Layer):
    # order-robustness augmentation: shuffle the tokens of each batch while training
    def call(self, x, training=False):
        if training:
            by_position = tf.transpose(x, [1, 0, 2])
            by_position = tf.random.experimental.stateless_shuffle(by_position, seed=[1, 2])
            x = tf.transpose(by_position, [1, 0, 2])
        return x


model = keras.Sequential([
    keras.Input((16, 8)),
    ShuffleTokens(),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((32, 16, 8)), np.ones((32, 1)), epochs=1, verbose=0)
