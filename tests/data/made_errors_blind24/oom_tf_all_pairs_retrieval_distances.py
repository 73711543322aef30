import tensorflow as tf

queries = tf.random.normal([200_000, 128])
corpus = tf.random.normal([1_000_000, 128])
# exact nearest neighbours: every query against every document at once
distances = tf.reduce_sum(tf.square(queries[:, None, :] - corpus[None, :, :]), axis=-1)
print(tf.argmin(distances, axis=1)[:5])
