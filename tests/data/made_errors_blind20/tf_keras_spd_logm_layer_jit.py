import numpy as np
import keras
import tensorflow as tf


class LogEuclidean(keras.layers.Layer):
    # map covariance (SPD) matrices of EEG channels to the tangent space
    def call(self, covariances):
        logs = tf.linalg.logm(tf.cast(covariances, tf.complex64))
        return tf.math.real(logs)


model = keras.Sequential([
    keras.Input((8, 8)),
    LogEuclidean(),
    keras.layers.Flatten(),
    keras.layers.Dense(2),
])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
spd = np.stack([np.eye(8) * (1 + i) for i in range(16)]).astype("float32")
model.fit(spd, np.ones((16, 2)), epochs=1, verbose=0)
