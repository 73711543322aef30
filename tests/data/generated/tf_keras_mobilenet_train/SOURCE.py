# XLA_FLAGS extra: ''; env: {}
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def save_ir(fn, args, name):
    for stage in ("hlo", "optimized_hlo"):
        with open(os.path.join(OUT, f"{name}.{stage}.txt"), "w") as out:
            out.write(fn.experimental_get_compiler_ir(*args)(stage=stage))

layers = tf.keras.layers


def inverted_residual(x, expand, filters, stride):
    y = layers.ReLU(6.0)(layers.BatchNormalization()(layers.Conv2D(expand, 1, use_bias=False)(x)))
    y = layers.DepthwiseConv2D(3, stride, padding="same", use_bias=False)(y)
    y = layers.ReLU(6.0)(layers.BatchNormalization()(y))
    y = layers.BatchNormalization()(layers.Conv2D(filters, 1, use_bias=False)(y))
    return layers.Add()([x, y]) if stride == 1 and x.shape[-1] == filters else y


inputs = tf.keras.Input((32, 32, 3))
x = layers.ReLU(6.0)(layers.BatchNormalization()(layers.Conv2D(16, 3, 2, padding="same")(inputs)))
for expand, filters, stride in ((32, 16, 1), (48, 24, 2), (72, 24, 1)):
    x = inverted_residual(x, expand, filters, stride)
outputs = layers.Dense(10)(layers.GlobalAveragePooling2D()(x))
model = tf.keras.Model(inputs, outputs, name="small_mobilenet")
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
        )
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


x, y = tf.ones((2, 32, 32, 3)), tf.zeros((2,), tf.int32)
train_step(x, y)
save_ir(train_step, (x, y), "mobilenetv2_train_step")
