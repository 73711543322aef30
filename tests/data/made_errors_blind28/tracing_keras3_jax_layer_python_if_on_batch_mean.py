import os

os.environ["KERAS_BACKEND"] = "jax"
import keras
import numpy as np
from keras import ops


class SafeNormalize(keras.layers.Layer):
    def call(self, x):
        # skip the normalisation on an all-zero (padding) batch
        if ops.mean(ops.abs(x)) > 0:
            return x / ops.norm(x, axis=-1, keepdims=True)
        return x


model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), SafeNormalize()])
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((64, 16)), np.ones((64, 8)), epochs=1, verbose=0)
