import tensorflow as tf

NUM_BUCKETS = 1 << 20
table = tf.Variable(tf.random.normal([NUM_BUCKETS // 64, 16]))


@tf.function(jit_compile=True)
def embed_user_ids(user_ids):
    # hash trick: stable 64-bit hashes of the raw ids
    hashed = tf.fingerprint(user_ids)
    buckets = tf.math.floormod(tf.bitcast(hashed, tf.int64), NUM_BUCKETS // 64)
    return tf.gather(table, buckets)


print(embed_user_ids(tf.constant([12345, 67890, 42], tf.int64)).shape)
