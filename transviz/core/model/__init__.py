"""The model and its parts: the vocabulary that turns text into token ids (``vocab``), the
configuration and its checks (``config``; ``layout`` lists the tensors a config implies without
building them, ``init`` the ways the weights start), the encoder-decoder Transformer read like the
paper (``transformer``) with its masks, positional encodings and key/value cache (``masks``,
``positional``, ``kv_cache``), the decoder's one-row fast path (``row_blocks``), the named sites
in attention that taps attach to (``sites``), and the ``Model`` every layer above passes around: a
network with its vocabularies and training facts (``bundle``). Imports only from ``base``.
"""
