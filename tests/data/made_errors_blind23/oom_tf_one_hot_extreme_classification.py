import tensorflow as tf

# product categorisation over five million catalogue ids
labels = tf.random.uniform((100_000,), 0, 5_000_000, dtype=tf.int32)
targets = tf.one_hot(labels, depth=5_000_000)
print(tf.reduce_sum(targets))
