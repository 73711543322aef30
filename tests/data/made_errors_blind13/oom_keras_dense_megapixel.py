import tensorflow as tf

IMG_PIXELS = 1024 * 1024

model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(IMG_PIXELS,)),
        tf.keras.layers.Dense(IMG_PIXELS, activation="relu"),
    ]
)
model.summary()
