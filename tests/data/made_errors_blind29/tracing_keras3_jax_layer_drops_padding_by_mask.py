import os

os.environ["KERAS_BACKEND"] = "jax"
import keras
import numpy as np
from keras import ops


class MeanOverTokens(keras.layers.Layer):
    def call(self, x):
        # average only the real tokens: padding rows are all zeros
        keep = ops.any(ops.not_equal(x, 0.0), axis=-1)
        return ops.mean(x[keep], axis=0, keepdims=True)


inputs = keras.Input((20, 8))
model = keras.Model(inputs, MeanOverTokens()(keras.layers.Dense(8)(inputs)))
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((16, 20, 8)), np.ones((16, 8)), epochs=1, verbose=0)
