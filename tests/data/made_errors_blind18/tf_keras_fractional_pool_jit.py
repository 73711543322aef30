import numpy as np
import keras
import tensorflow as tf


class FractionalPool(keras.layers.Layer):
    def call(self, x):
        pooled, _, _ = tf.nn.fractional_max_pool(x, [1.0, 1.44, 1.44, 1.0])
        return pooled


model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(8, 3, padding="same"),
    FractionalPool(),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((16, 32, 32, 3)), np.ones((16, 10)), epochs=1, verbose=0)
