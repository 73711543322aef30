import tensorflow as tf


@tf.function
def embed_features(features):
    return tf.add_n([tf.reduce_sum(v, axis=-1) for v in features.values()])


optional = ["age", "country", "device", "hour", "referrer", "os", "lang"]
for step in range(7):
    # a feature is in the batch only when some example in it has one
    batch = {"user_id": tf.ones([32, 4])}
    for name in optional[: step + 1]:
        batch[name] = tf.ones([32, 4])
    print(embed_features(batch).shape)
