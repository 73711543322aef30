import tensorflow as tf

# product id -> category index, built from the catalogue
categories = tf.lookup.StaticHashTable(
    tf.lookup.KeyValueTensorInitializer(
        tf.constant([1001, 1002, 2001], tf.int64), tf.constant([0, 0, 1], tf.int64)
    ),
    default_value=2,
)
category_embeddings = tf.Variable(tf.random.normal((3, 8)))


@tf.function(jit_compile=True)
def basket_embedding(product_ids):
    ids = categories.lookup(product_ids)
    return tf.reduce_mean(tf.gather(category_embeddings, ids), axis=0)


print(basket_embedding(tf.constant([1001, 2001, 3005], tf.int64)))
