import os

os.environ["KERAS_BACKEND"] = "tensorflow"
import keras
import tensorflow as tf

augment = keras.Sequential([keras.layers.RandomFlip("horizontal"),
                           keras.layers.RandomRotation(0.1)])
model = keras.Sequential([keras.layers.Conv2D(8, 3), keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(10)])
opt = keras.optimizers.Adam(1e-3)
model.build((None, 32, 32, 3))


@tf.function(jit_compile=True)
def train_step(images, labels):
    images = augment(images, training=True)
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


print(train_step(tf.zeros([8, 32, 32, 3]), tf.zeros([8], tf.int32)))
