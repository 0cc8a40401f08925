"""Tiny random Hugging Face encoder-decoders saved with ``save_pretrained``, built here without any
download: transformers' own config classes, a SentencePiece model trained on generated sentences
(Marian), a byte-level BPE trained with the ``tokenizers`` library (BART). Imported by the hf tests
only after ``pytest.importorskip("transformers")``."""
from __future__ import annotations

import json
import random
from pathlib import Path

import torch

WORDS = ("ich der die das ein eine haus katze hund buch sehr gut klein gross ist war und mit "
         "nicht wir sie er heute morgen trinkt isst liest schreibt alt neu rot blau").split()
SENTENCES = [" ".join(random.Random(i).choices(WORDS, k=3 + i % 6)) + "." for i in range(400)]


def marian_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                  ffn: int = 64, vocab: int = 80, eos_bias: float = 0.0) -> Path:
    """A random MarianMT model with its source.spm / target.spm / vocab.json tokenizer in ``folder``."""
    import sentencepiece as spm
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.txt").write_text("\n".join(SENTENCES), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(folder / "corpus.txt"), model_prefix=str(folder / "sp"),
                                   vocab_size=vocab, character_coverage=1.0, minloglevel=2,
                                   pad_id=-1, bos_id=-1, eos_id=-1, unk_id=0, hard_vocab_limit=False)
    (folder / "corpus.txt").unlink()
    pieces = [line.split("\t")[0] for line in (folder / "sp.vocab").read_text(encoding="utf-8").splitlines()]
    # Marian's layout: </s> 0, <unk> 1, the pieces, <pad> last (the decoder's start token)
    tokens = ["</s>", "<unk>", *(p for p in pieces if p != "<unk>"), "<pad>"]
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes((folder / "sp.model").read_bytes())
    for name in ("sp.model", "sp.vocab"):
        (folder / name).unlink()
    MarianTokenizer(str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json")
                    ).save_pretrained(folder)
    pad = len(tokens) - 1
    config = MarianConfig(vocab_size=len(tokens), d_model=d_model, encoder_layers=layers, decoder_layers=layers,
                          encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=ffn,
                          decoder_ffn_dim=ffn, max_position_embeddings=64, pad_token_id=pad, eos_token_id=0,
                          decoder_start_token_id=pad, scale_embedding=True, activation_function="swish",
                          forced_eos_token_id=None, dropout=0.0, attention_dropout=0.0,
                          activation_dropout=0.0)
    _save(MarianMTModel(config), folder, seed, eos_bias)
    return folder


def bart_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                ffn: int = 64, vocab: int = 300, eos_bias: float = 0.0, decoder_layers: int | None = None) -> Path:
    """A random BART model with a byte-level BPE tokenizer (vocab.json + merges.txt) in ``folder``;
    ``layers`` is the encoder's depth, and the decoder's unless ``decoder_layers`` differs."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(SENTENCES, vocab_size=vocab, min_frequency=1, show_progress=False,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.save_model(str(folder))  # vocab.json, merges.txt
    BartTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt")).save_pretrained(folder)
    size = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    config = BartConfig(vocab_size=size, d_model=d_model, encoder_layers=layers,
                        decoder_layers=decoder_layers or layers,
                        encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=ffn,
                        decoder_ffn_dim=ffn, max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                        activation_dropout=0.0, forced_eos_token_id=None, forced_bos_token_id=None)
    _save(BartForConditionalGeneration(config), folder, seed, eos_bias)
    return folder


def _save(model: torch.nn.Module, folder: Path, seed: int, eos_bias: float) -> None:
    """Random weights with a spread that makes every map and choice count (the default init is
    nearly uniform attention), <pad> never the likeliest output, </s> raised by ``eos_bias`` (so that
    outputs end at different lengths), then ``save_pretrained`` (safetensors)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen) if name.endswith("weight")
                        else 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
        bias = getattr(model, "final_logits_bias", None)
        if bias is not None:  # a trained model never writes <pad>: random ones would, now and then
            bias.copy_(0.5 * torch.randn(bias.shape, generator=gen))
            bias[0, model.config.pad_token_id] = -100.0
            bias[0, model.config.eos_token_id] += eos_bias
    model.eval().save_pretrained(folder)
