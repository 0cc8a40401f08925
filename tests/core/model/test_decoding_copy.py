"""decoding_copy: the one way the app copies a model to decode beside the original."""
from __future__ import annotations

import torch

import transviz
from transviz.core.model.bundle import decoding_copy
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

WORDS = "ich mochte ein bier".split()


def tied_model() -> transviz.Model:
    torch.manual_seed(0)
    vocab = Vocab(WORDS)
    config = transviz.ModelConfig(len(vocab), len(vocab), d_model=16, n_heads=2, n_encoder_layers=1,
                                  n_decoder_layers=1, d_ff=32, dropout=0.1, max_len=16,
                                  share_embeddings=True, tie_output=True)
    return transviz.Model(Transformer(config).train(), vocab, vocab, {"task": "toy", "metrics": {"bleu": 1.0}},
                          "model.safetensors")


def test_a_decoding_copy_shares_nothing_and_decodes_the_same():
    model = tied_model()
    copied = decoding_copy(model)
    assert model.net.training and all(p.requires_grad for p in model.net.parameters())  # the original as it was
    assert not copied.net.training and not any(p.requires_grad for p in copied.net.parameters())
    theirs = {p.data_ptr() for p in model.net.parameters()}
    assert not theirs & {p.data_ptr() for p in copied.net.parameters()}
    net = copied.net
    assert net.src_embed is net.tgt_embed and net.generator.weight is net.tgt_embed.weight  # still tied
    assert copied.facts == model.facts and copied.facts["metrics"] is not model.facts["metrics"]
    assert (copied.path, copied.src_vocab, copied.tgt_vocab) == (model.path, model.src_vocab, model.tgt_vocab)
    assert copied.device == model.device == decoding_copy(model, "cpu").device == torch.device("cpu")

    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[1, 4, 5]])
    model.net.eval()
    with torch.no_grad():
        expected = model.net(src, tgt).logits
        for p in model.net.parameters():
            p.add_(1.0)  # training goes on: the copy does not see it
    torch.testing.assert_close(copied.net(src, tgt).logits, expected, atol=0, rtol=0)
