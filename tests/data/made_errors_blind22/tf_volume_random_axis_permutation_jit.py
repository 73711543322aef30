import tensorflow as tf


@tf.function(jit_compile=True)
def augment_volume(volume):
    # CT augmentation: view the cube along a random permutation of its axes
    perm = tf.random.shuffle(tf.range(3))
    return tf.transpose(volume, perm)


print(augment_volume(tf.zeros((64, 64, 64))).shape)
