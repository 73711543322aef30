import tensorflow as tf


@tf.function(jit_compile=True)
def recall_at_k(scores, relevant_items, k=10):
    # recommender metric: how many relevant items made the top k
    _, top_items = tf.math.top_k(scores, k)
    hits = tf.sets.intersection(top_items, relevant_items)
    return tf.reduce_mean(tf.cast(tf.sets.size(hits), tf.float32) / k)


print(recall_at_k(tf.random.normal((32, 1000)), tf.random.uniform((32, 5), 0, 1000, tf.int32)))
