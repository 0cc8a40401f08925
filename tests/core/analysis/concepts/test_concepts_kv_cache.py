"""The KV cache's contents against the model's own keys in a full pass (the keys each attention
module projects, recorded by taps), its bytes against the formula, and a cached step against a
recomputation of every position."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.kv_cache import cache_contents
from transviz.core.model.bundle import evaluating
from transviz.core.model.sites import Address, Site, recording

SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))


@pytest.mark.parametrize("name", ["default", "gqa", "mqa", "decoder-only"])
def test_the_cache_holds_the_keys_the_full_pass_projects_and_costs_what_the_formula_says(name):
    model = transviz.load_model(name)
    shown = cache_contents(model, SENTENCE)
    config = model.config
    assert shown.kv_heads == config.kv_heads and len(shown.layers) == config.n_decoder_layers
    assert shown.bytes_per_token == config.kv_cache_bytes_per_token()
    assert shown.difference < 1e-4  # a cached step is the recomputation's
    group = config.n_heads // config.kv_heads
    own, source = "decoder_self", "encoder_self" if config.decoder_only else "cross"
    addresses = [Address(kind, layer, Site.KEYS) for layer in range(config.n_decoder_layers) for kind in (own, source)]
    src = model.source_tensor(model.encode_source(SENTENCE.source))
    ids = [model.tgt_vocab.bos_id] + [model.tgt_vocab.id_of(t) for t in SENTENCE.target]
    with evaluating(model), torch.no_grad(), recording(model.net, addresses) as seen:
        model.net(src, torch.tensor([ids]))
    s = len(shown.source_tokens)
    for layer, cached in enumerate(shown.layers):
        keys = seen[Address(own, layer, Site.KEYS)][0, ::group].numpy()  # one per key/value head
        own_keys = keys[:, s:] if config.decoder_only else keys  # a decoder-only pass's keys: source, then own
        np.testing.assert_allclose(cached.own_keys, own_keys, atol=1e-5)
        source_keys = seen[Address(source, layer, Site.KEYS)][0, ::group].numpy()
        np.testing.assert_allclose(cached.source_keys, source_keys[:, :s], atol=1e-5)
