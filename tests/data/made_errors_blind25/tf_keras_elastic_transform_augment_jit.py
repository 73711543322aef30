import os

os.environ["KERAS_BACKEND"] = "tensorflow"
import keras
import tensorflow as tf

augment = keras.layers.RandomElasticTransform(factor=0.5, scale=0.2)
model = keras.Sequential([keras.layers.Conv2D(16, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
model.build((None, 64, 64, 1))
opt = keras.optimizers.Adam(1e-3)


@tf.function(jit_compile=True)
def train_step(scans, labels):
    scans = augment(scans, training=True)
    with tf.GradientTape() as tape:
        logits = model(scans, training=True)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


print(train_step(tf.random.uniform([4, 64, 64, 1]), tf.zeros([4], tf.int32)))
