import tensorflow as tf


def normalise(x):
    return (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6)


dataset = tf.data.Dataset.from_tensor_slices(tf.random.normal((64, 8))).batch(8)
for batch in dataset:
    step = tf.function(normalise)
    out = step(batch)
print("done")
