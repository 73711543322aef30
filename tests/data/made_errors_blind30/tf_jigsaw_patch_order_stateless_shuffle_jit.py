import tensorflow as tf


@tf.function(jit_compile=True)
def jigsaw_views(patches, seed):
    # self-supervised jigsaw task: shuffle the nine patches of every image
    order = tf.random.experimental.stateless_shuffle(tf.range(9), seed=seed)
    return tf.gather(patches, order, axis=1), order


patches = tf.random.uniform([16, 9, 32, 32, 3])
print(jigsaw_views(patches, tf.constant([3, 7]))[1])
