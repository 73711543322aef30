import tensorflow as tf


@tf.function(jit_compile=True)
def decode(logits, frame_counts):
    # speech recogniser: best transcripts by beam search over the CTC outputs
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(logits, frame_counts, beam_width=16)
    return tf.sparse.to_dense(decoded[0]), log_probs


logits = tf.random.normal((200, 4, 29))  # time x batch x characters
tokens, _ = decode(logits, tf.fill([4], 200))
print(tokens.shape)
