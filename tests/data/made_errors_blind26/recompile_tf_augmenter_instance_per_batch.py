import tensorflow as tf


class Augmenter:
    def __init__(self, strength):
        self.strength = strength

    @tf.function
    def __call__(self, images):
        noise = tf.random.normal(tf.shape(images)) * self.strength
        return tf.clip_by_value(images + noise, 0.0, 1.0)


images = tf.random.uniform([32, 64, 64, 3])
for step in range(8):
    augment = Augmenter(strength=0.1)  # a fresh augmenter for every batch
    batch = augment(images)
print(batch.shape)
