import tensorflow as tf


@tf.function(jit_compile=True)
def frechet_distance(mu1, sigma1, mu2, sigma2):
    covmean = tf.linalg.sqrtm(sigma1 @ sigma2)
    return tf.reduce_sum((mu1 - mu2) ** 2) + tf.linalg.trace(sigma1 + sigma2 - 2.0 * covmean)


# Inception features of real and generated images
real = tf.random.normal((256, 64))
fake = tf.random.normal((256, 64))
sigma_real = tf.linalg.matmul(real, real, transpose_a=True) / 255.0
sigma_fake = tf.linalg.matmul(fake, fake, transpose_a=True) / 255.0
print(frechet_distance(tf.reduce_mean(real, 0), sigma_real, tf.reduce_mean(fake, 0), sigma_fake))
