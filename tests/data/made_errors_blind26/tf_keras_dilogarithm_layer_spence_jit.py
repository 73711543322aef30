import keras
import numpy as np
import tensorflow as tf


class DilogFeatures(keras.layers.Layer):
    # polylog features of the positive inputs, for the pricing model
    def call(self, x):
        return tf.math.special.spence(tf.nn.softplus(x) + 1.0)


model = keras.Sequential([keras.Input((16,)), DilogFeatures(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((64, 16), "float32"), np.ones((64, 1), "float32"), epochs=1, verbose=0)
