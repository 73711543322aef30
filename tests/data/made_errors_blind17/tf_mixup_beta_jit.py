import tensorflow as tf


def sample_beta(alpha, n):
    a = tf.random.gamma([n], alpha)
    b = tf.random.gamma([n], alpha)
    return a / (a + b)


@tf.function(jit_compile=True)
def mixup(images, labels, alpha=0.2):
    lam = sample_beta(alpha, 1)[0]
    index = tf.reverse(tf.range(tf.shape(images)[0]), [0])
    mixed = lam * images + (1 - lam) * tf.gather(images, index)
    return mixed, lam * labels + (1 - lam) * tf.gather(labels, index)


images, labels = tf.ones((8, 32, 32, 3)), tf.one_hot(tf.range(8) % 4, 4)
print(mixup(images, labels)[0].shape)
