import os

os.environ["KERAS_BACKEND"] = "jax"
import keras
import numpy as np
from keras import ops

HIDDEN = 256  # the width of the previous model version


class GatedResidual(keras.layers.Layer):
    def build(self, input_shape):
        self.gate = self.add_weight(shape=(HIDDEN, input_shape[-1]), initializer="zeros")

    def call(self, x):
        return x + ops.sigmoid(ops.matmul(x, self.gate)) * x


inputs = keras.Input((384,))
model = keras.Model(inputs, keras.layers.Dense(1)(GatedResidual()(inputs)))
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((32, 384)), np.ones((32, 1)), epochs=1, verbose=0)
