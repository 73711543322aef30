import random

import tensorflow as tf


@tf.function
def augment(images, params):
    images = tf.image.adjust_brightness(images, params["brightness"])
    return tf.image.adjust_contrast(images, params["contrast"])


images = tf.random.uniform((16, 64, 64, 3))
for step in range(8):
    # fresh colour-jitter strengths for every batch
    params = {"brightness": random.uniform(-0.2, 0.2), "contrast": random.uniform(0.8, 1.2)}
    augment(images, params)
