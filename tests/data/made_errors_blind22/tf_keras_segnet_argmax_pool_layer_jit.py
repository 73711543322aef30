import numpy as np
import keras
import tensorflow as tf


class PoolWithIndices(keras.layers.Layer):
    # SegNet encoder: remember where each maximum was, for the decoder's unpooling
    def call(self, x):
        pooled, argmax = tf.nn.max_pool_with_argmax(x, 2, 2, "SAME")
        return pooled, tf.cast(argmax, tf.float32)


inputs = keras.Input((32, 32, 3))
pooled, indices = PoolWithIndices()(keras.layers.Conv2D(8, 3, padding="same")(inputs))
outputs = keras.layers.Conv2D(2, 1)(keras.layers.UpSampling2D()(pooled))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((8, 32, 32, 3)), np.ones((8, 32, 32, 2)), epochs=1, verbose=0)
