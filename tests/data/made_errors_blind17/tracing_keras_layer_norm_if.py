import numpy as np
import keras
from keras import ops


class ClipByNorm(keras.layers.Layer):
    def call(self, x):
        norm = ops.sqrt(ops.sum(x * x))
        if norm > 1.0:
            x = x / norm
        return x


model = keras.Sequential([keras.layers.Dense(16), ClipByNorm(), keras.layers.Dense(1)])
model(np.ones((1, 8)))  # build the weights
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((32, 8)), np.ones((32, 1)), epochs=1, verbose=0)
