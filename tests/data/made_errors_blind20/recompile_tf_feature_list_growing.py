import tensorflow as tf


@tf.function
def pooled_features(feature_maps):
    # feature pyramid: pool every level collected so far
    return tf.add_n([tf.reduce_mean(f, axis=[1, 2]) for f in feature_maps])


levels = []
x = tf.random.normal((2, 64, 64, 16))
for level in range(7):
    levels.append(x)
    x = tf.nn.avg_pool2d(x, 2, 2, "VALID")
    print(pooled_features(levels).shape)
