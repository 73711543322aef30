import tensorflow as tf

w = tf.Variable(tf.random.normal([128, 64]))


@tf.function(jit_compile=True)
def clipped_step(x, y, max_norm=1.0):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    (g,) = tape.gradient(loss, [w])
    norm = tf.math.reduce_euclidean_norm(g)
    w.assign_sub(0.01 * g * tf.minimum(1.0, max_norm / norm))
    return loss


print(clipped_step(tf.random.normal([32, 128]), tf.random.normal([32, 64])))
