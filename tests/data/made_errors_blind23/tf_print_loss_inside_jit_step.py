import tensorflow as tf

w = tf.Variable(tf.zeros((8, 1)))
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    tf.print("loss:", loss)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


train_step(tf.ones((32, 8)), tf.ones((32, 1)))
