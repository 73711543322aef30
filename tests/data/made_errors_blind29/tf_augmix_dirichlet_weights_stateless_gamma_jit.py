import tensorflow as tf


@tf.function(jit_compile=True)
def augmix(image, seed):
    # AugMix: mix three augmented chains with Dirichlet(1, 1, 1) weights
    g = tf.random.stateless_gamma([3], seed=seed, alpha=[1.0, 1.0, 1.0])
    weights = g / tf.reduce_sum(g)
    chains = tf.stack([tf.image.flip_left_right(image), tf.image.flip_up_down(image),
                       tf.image.adjust_brightness(image, 0.2)])
    return tf.tensordot(weights, chains, axes=1)


print(augmix(tf.random.uniform([32, 32, 3]), tf.constant([1, 2])).shape)
