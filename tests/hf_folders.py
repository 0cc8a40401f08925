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


ENGLISH = ("the a dog cat house book sees reads writes drinks eats is was very good small big red blue "
           "and with not we they he today tomorrow old new").split()
ENGLISH_SENTENCES = [" ".join(random.Random(-i).choices(ENGLISH, k=3 + i % 6)) + "." for i in range(400)]


def _sentencepiece(folder: Path, name: str, sentences: list[str], vocab: int) -> list[str]:
    """``folder/name``, a SentencePiece model trained on ``sentences``; its pieces, <unk> left out."""
    return [piece for piece, _ in _scored_pieces(folder, name, sentences, vocab)]


def _scored_pieces(folder: Path, name: str, sentences: list[str], vocab: int) -> list[tuple[str, float]]:
    """``folder/name``, a SentencePiece model trained on ``sentences``; its pieces and their scores
    (what a ``tokenizers`` Unigram model is built from), <unk> left out."""
    import sentencepiece as spm

    (folder / "corpus.txt").write_text("\n".join(sentences), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(folder / "corpus.txt"), model_prefix=str(folder / "sp"),
                                   vocab_size=vocab, character_coverage=1.0, minloglevel=2,
                                   pad_id=-1, bos_id=-1, eos_id=-1, unk_id=0, hard_vocab_limit=False)
    lines = [line.split("\t") for line in (folder / "sp.vocab").read_text(encoding="utf-8").splitlines()]
    (folder / "sp.model").rename(folder / name)
    for leftover in ("corpus.txt", "sp.vocab"):
        (folder / leftover).unlink()
    return [(piece, float(score)) for piece, score in lines if piece != "<unk>"]


def _marian_tokens(*piece_lists: list[str], pad_last: bool = True) -> list[str]:
    """Marian's layout: </s> 0, <unk> 1, the pieces, <pad> last (the decoder's start token); two
    vocabularies of different sizes have their one padding id at 2."""
    pieces = list(dict.fromkeys(p for pieces in piece_lists for p in pieces))
    return ["</s>", "<unk>", *pieces, "<pad>"] if pad_last else ["</s>", "<unk>", "<pad>", *pieces]


def marian_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                  ffn: int = 64, vocab: int = 80, eos_bias: float = 0.0, english_target: bool = False,
                  separate_vocabs: bool = False, tied: bool = True, decoder_layers: int | None = None,
                  pad_bias: float = -100.0) -> Path:
    """A random MarianMT model with its source.spm / target.spm / vocab.json tokenizer in ``folder``.

    ``english_target``: target.spm is trained on English sentences, so that the two sides split
    text differently (as in every real opus-mt folder); ``separate_vocabs``: the target has its own
    target_vocab.json and embedding table; ``tied=False``: each embedding table and the output
    layer are separate tensors (``tie_word_embeddings=False``); ``pad_bias``: <pad>'s output
    bias (a high one makes the model write <pad> unless the generation config bans it)."""
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    source = _sentencepiece(folder, "source.spm", SENTENCES, vocab)
    target = _sentencepiece(folder, "target.spm", ENGLISH_SENTENCES, vocab + 20) if english_target else source
    if not english_target:
        (folder / "target.spm").write_bytes((folder / "source.spm").read_bytes())
    tokens = _marian_tokens(source, pad_last=False) if separate_vocabs else _marian_tokens(source, target)
    target_tokens = _marian_tokens(target, pad_last=False) if separate_vocabs else tokens
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    options: dict[str, object] = {}
    if separate_vocabs:
        (folder / "target_vocab.json").write_text(json.dumps({t: i for i, t in enumerate(target_tokens)}),
                                                  encoding="utf-8")
        options = {"target_vocab_file": str(folder / "target_vocab.json"), "separate_vocabs": True}
    MarianTokenizer(str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json"), **options
                    ).save_pretrained(folder)
    pad = target_tokens.index("<pad>")
    config = MarianConfig(vocab_size=len(tokens), decoder_vocab_size=len(target_tokens),
                          share_encoder_decoder_embeddings=not separate_vocabs, tie_word_embeddings=tied,
                          d_model=d_model, encoder_layers=layers, decoder_layers=decoder_layers or layers,
                          encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=ffn,
                          decoder_ffn_dim=ffn, max_position_embeddings=64, pad_token_id=pad, eos_token_id=0,
                          decoder_start_token_id=pad, scale_embedding=True, activation_function="swish",
                          forced_eos_token_id=None, dropout=0.0, attention_dropout=0.0,
                          activation_dropout=0.0)
    _save(MarianMTModel(config), folder, seed, eos_bias, pad_bias=pad_bias)
    return folder


def bart_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                ffn: int = 64, vocab: int = 300, eos_bias: float = 0.0, decoder_layers: int | None = None,
                tied: bool = True, scale: bool = False, shards: bool = False) -> Path:
    """A random BART model with a byte-level BPE tokenizer (vocab.json + merges.txt) in ``folder``;
    ``layers`` is the encoder's depth, and the decoder's unless ``decoder_layers`` differs;
    ``shards``: the weights saved in several files with an index, as large models are."""
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
                        activation_dropout=0.0, forced_eos_token_id=None, forced_bos_token_id=None,
                        tie_word_embeddings=tied, scale_embedding=scale)
    _save(BartForConditionalGeneration(config), folder, seed, eos_bias, shards)
    return folder


MBART_LANGUAGES = ("de_DE", "en_XX")


def mbart_folder(folder: Path, seed: int = 0, *, fifty: bool = False, d_model: int = 32, heads: int = 4,
                 layers: int = 2, decoder_layers: int | None = None, ffn: int = 64, vocab: int = 120,
                 eos_bias: float = 0.0, tied: bool = True, scale: bool = True) -> Path:
    """A random mBART model translating de_DE -> en_XX with its tokenizer (tokenizer.json).

    mBART's tokenizer ends a source with </s> and its language code, and the decoder starts with
    the target language's code; ``fifty``: mBART-50's tokenizer, which puts the code first (the
    decoder then starts with </s> and generate() forces the code as the first token)."""
    from transformers import MBart50Tokenizer, MBartConfig, MBartForConditionalGeneration, MBartTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    pieces = _scored_pieces(folder, "sp.model", SENTENCES + ENGLISH_SENTENCES, vocab)
    (folder / "sp.model").unlink()  # the tokenizer is rebuilt from the scored pieces
    specials = [(t, 0.0) for t in ("<s>", "<pad>", "</s>", "<unk>")]
    table = [*specials, *pieces, *((code, 0.0) for code in MBART_LANGUAGES), ("<mask>", 0.0)]
    build = MBart50Tokenizer if fifty else MBartTokenizer
    tokenizer = build(vocab=table, src_lang="de_DE", tgt_lang="en_XX")
    tokenizer.save_pretrained(folder)
    target = tokenizer.convert_tokens_to_ids("en_XX")
    starts = {"decoder_start_token_id": 2, "forced_bos_token_id": target} if fifty else \
        {"decoder_start_token_id": target}
    config = MBartConfig(vocab_size=len(tokenizer), d_model=d_model, encoder_layers=layers,
                         decoder_layers=decoder_layers or layers, encoder_attention_heads=heads,
                         decoder_attention_heads=heads, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn,
                         max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                         scale_embedding=scale, tie_word_embeddings=tied, forced_eos_token_id=None, **starts)
    _save(MBartForConditionalGeneration(config), folder, seed, eos_bias)
    return folder


def pegasus_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                   decoder_layers: int | None = None, ffn: int = 64, vocab: int = 100, eos_bias: float = 0.0,
                   tied: bool = True) -> Path:
    """A random Pegasus model (pre-norm, Marian's sine table) with its tokenizer (tokenizer.json)."""
    from transformers import PegasusConfig, PegasusForConditionalGeneration, PegasusTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    pieces = _scored_pieces(folder, "sp.model", SENTENCES, vocab)
    (folder / "sp.model").unlink()
    specials = [(t, 0.0) for t in ("<pad>", "</s>", "<mask_1>", "<mask_2>", "<unk>")]
    tokenizer = PegasusTokenizer(vocab=[*specials, *pieces], offset=2)  # Pegasus keeps 103 rows for its masks
    tokenizer.save_pretrained(folder)
    config = PegasusConfig(vocab_size=len(tokenizer), d_model=d_model, encoder_layers=layers,
                           decoder_layers=decoder_layers or layers, encoder_attention_heads=heads,
                           decoder_attention_heads=heads, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn,
                           max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                           scale_embedding=True, tie_word_embeddings=tied, pad_token_id=0, eos_token_id=1,
                           decoder_start_token_id=0, forced_eos_token_id=None)
    _save(PegasusForConditionalGeneration(config), folder, seed, eos_bias)
    return folder


def t5_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
              decoder_layers: int | None = None, ffn: int = 64, vocab: int = 100, eos_bias: float = 0.0,
              gated: bool = False, tied: bool = True, buckets: int = 8, max_distance: int = 20) -> Path:
    """A random T5 model with its tokenizer (tokenizer.json): ``gated`` and ``tied=False`` make it a
    T5 v1.1 (gated-GELU feed-forward, its own output layer)."""
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    pieces = _scored_pieces(folder, "sp.model", SENTENCES + ENGLISH_SENTENCES, vocab)
    (folder / "sp.model").unlink()
    specials = [(t, 0.0) for t in ("<pad>", "</s>", "<unk>")]
    tokenizer = T5Tokenizer(vocab=[*specials, *pieces], extra_ids=4)  # T5's sentinels come after the pieces
    tokenizer.save_pretrained(folder)
    config = T5Config(vocab_size=len(tokenizer), d_model=d_model, d_kv=d_model // heads, num_heads=heads,
                      num_layers=layers, num_decoder_layers=decoder_layers or layers, d_ff=ffn,
                      relative_attention_num_buckets=buckets, relative_attention_max_distance=max_distance,
                      feed_forward_proj="gated-gelu" if gated else "relu", dropout_rate=0.0,
                      tie_word_embeddings=tied, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    model = T5ForConditionalGeneration(config)
    _save(model, folder, seed, eos_bias)
    return folder


FAIRSEQ_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>")  # fairseq's dictionaries begin so


def m2m100_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                  decoder_layers: int | None = None, ffn: int = 64, vocab: int = 120, eos_bias: float = 0.0,
                  tied: bool = True, nllb: bool = False) -> Path:
    """A random M2M100 model translating de -> en (fairseq's sine table, pre-norm) with its
    tokenizer (vocab.json + sentencepiece.bpe.model); generate() is told the target language.
    ``nllb``: NLLB's tokenizer instead (tokenizer.json, codes such as eng_Latn), as NLLB's
    checkpoints pair it with this architecture."""
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    if nllb:
        tokenizer = _nllb_tokenizer()
    else:
        pieces = _sentencepiece(folder, "sentencepiece.bpe.model", SENTENCES + ENGLISH_SENTENCES, vocab)
        tokens = [*FAIRSEQ_SPECIALS, *pieces]
        (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
        tokenizer = M2M100Tokenizer(str(folder / "vocab.json"), str(folder / "sentencepiece.bpe.model"),
                                    src_lang="de", tgt_lang="en", language_codes="wmt21")
    tokenizer.save_pretrained(folder)
    languages = getattr(tokenizer, "lang_token_to_id", {}).values()  # after the pieces, not in len(tokenizer)
    config = M2M100Config(vocab_size=max([len(tokenizer), *(i + 1 for i in languages)]), d_model=d_model,
                          encoder_layers=layers,
                          decoder_layers=decoder_layers or layers, encoder_attention_heads=heads,
                          decoder_attention_heads=heads, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn,
                          max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                          encoder_layerdrop=0.0, decoder_layerdrop=0.0, tie_word_embeddings=tied)
    _save(M2M100ForConditionalGeneration(config), folder, seed, eos_bias)
    return folder


def _nllb_tokenizer() -> object:
    """NLLB's tokenizer over single characters and word-initial ones (BPE merges of "▁" and a
    character), translating deu_Latn -> eng_Latn."""
    from transformers import NllbTokenizer

    chars = sorted({c for s in SENTENCES + ENGLISH_SENTENCES for c in s.replace(" ", "")})
    vocab = {t: i for i, t in enumerate(FAIRSEQ_SPECIALS)}
    for piece in ["▁", *chars, *("▁" + c for c in chars)]:
        vocab.setdefault(piece, len(vocab))
    return NllbTokenizer(vocab=vocab, merges=[("▁", c) for c in chars], src_lang="deu_Latn", tgt_lang="eng_Latn")


def _bpe(words: list[str], merges: int) -> tuple[list[tuple[str, str]], set[str]]:
    """``merges`` byte-pair merges learned on ``words`` in FSMT's format (the last symbol of a
    word ends in </w>), and every symbol they make, single characters included."""
    from collections import Counter
    from itertools import pairwise

    split = Counter(tuple(w[:-1]) + (w[-1] + "</w>",) for w in words)
    learned: list[tuple[str, str]] = []
    symbols = {s for word in split for s in word}
    for _ in range(merges):
        pairs: Counter[tuple[str, str]] = Counter()
        for word, n in split.items():
            for pair in pairwise(word):
                pairs[pair] += n
        if not pairs:
            break
        (a, b), _ = pairs.most_common(1)[0]
        learned.append((a, b))
        symbols.add(a + b)
        merged: Counter[tuple[str, ...]] = Counter()
        for word, n in split.items():
            out: list[str] = []
            i = 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == (a, b):
                    out.append(a + b)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += n
        split = merged
    return learned, symbols


def fsmt_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                decoder_layers: int | None = None, ffn: int = 64, eos_bias: float = 0.0, tied: bool = False) -> Path:
    """A random FSMT model (fairseq's WMT19 architecture) translating de -> en: its own source and
    target vocabularies over one set of BPE merges (vocab-src.json, vocab-tgt.json, merges.txt);
    ``tied``: one joint vocabulary and one table for both stacks and the output (fairseq's
    share_all_embeddings, which transformers' tying amounts to)."""
    from transformers import FSMTConfig, FSMTForConditionalGeneration, FSMTTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    words = {side: [w for s in sentences for w in s.replace(".", " .").split()]
             for side, sentences in (("de", SENTENCES), ("en", ENGLISH_SENTENCES))}
    merges, _ = _bpe(words["de"] + words["en"], 60)
    (folder / "merges.txt").write_text("".join(f"{a} {b}\n" for a, b in merges), encoding="utf-8")
    for side, name in (("de", "vocab-src.json"), ("en", "vocab-tgt.json")):
        _, symbols = _bpe(words["de"] + words["en"] if tied else words[side], 0)
        made = {a + b for a, b in merges} | symbols
        tokens = [*FAIRSEQ_SPECIALS, *sorted(made)]
        (folder / name).write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    tokenizer = FSMTTokenizer(langs=["de", "en"], src_vocab_file=str(folder / "vocab-src.json"),
                              tgt_vocab_file=str(folder / "vocab-tgt.json"), merges_file=str(folder / "merges.txt"))
    tokenizer.save_pretrained(folder)
    config = FSMTConfig(langs=["de", "en"], src_vocab_size=tokenizer.src_vocab_size,
                        tgt_vocab_size=tokenizer.tgt_vocab_size, d_model=d_model, encoder_layers=layers,
                        decoder_layers=decoder_layers or layers, encoder_attention_heads=heads,
                        decoder_attention_heads=heads, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn,
                        max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                        tie_word_embeddings=tied, forced_eos_token_id=None)
    _save(FSMTForConditionalGeneration(config), folder, seed, eos_bias)
    return folder


SINE_TABLES = ("pegasus", "fsmt")  # model types that save their fixed sine table as a weight


def _save(model: torch.nn.Module, folder: Path, seed: int, eos_bias: float, shards: bool = False,
          pad_bias: float = -100.0) -> None:
    """Random weights with a spread that makes every map and choice count (the default init is
    nearly uniform attention), <pad> never the likeliest output, </s> raised by ``eos_bias`` (so that
    outputs end at different lengths), then ``save_pretrained`` (safetensors)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embed_positions" in name and model.config.model_type in SINE_TABLES:
                continue
            if "norm" in name:
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen) if name.endswith("weight")
                        else 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
        bias = getattr(model, "final_logits_bias", None)
        if bias is not None:  # a trained model never writes <pad>: random ones would, now and then
            bias.copy_(0.5 * torch.randn(bias.shape, generator=gen))
            bias[0, model.config.pad_token_id] = pad_bias
            bias[0, model.config.eos_token_id] += eos_bias
    model.eval().save_pretrained(folder, max_shard_size="40KB" if shards else "50GB")


def gpt2_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, layers: int = 2,
                vocab: int = 300, eos_bias: float = 0.0, tied: bool = True, **options: object) -> Path:
    """A random GPT-2 with a byte-level BPE tokenizer (vocab.json + merges.txt) whose one special
    token, <|endoftext|>, is its start, end and unknown token; ``options`` go to GPT2Config."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(ENGLISH_SENTENCES, vocab_size=vocab, min_frequency=1, show_progress=False,
                            special_tokens=["<|endoftext|>"])
    bpe.save_model(str(folder))
    GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt")).save_pretrained(folder)
    size = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    config = GPT2Config(vocab_size=size, n_embd=d_model, n_head=heads, n_layer=layers, n_positions=64,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0,
                        tie_word_embeddings=tied, **options)
    _save_decoder(GPT2LMHeadModel(config), folder, seed, 0, eos_bias)
    return folder


def llama_folder(folder: Path, seed: int = 0, *, d_model: int = 32, heads: int = 4, kv_heads: int = 2,
                 layers: int = 2, ffn: int = 48, eos_bias: float = 0.0, tied: bool = False, kind: str = "llama",
                 **options: object) -> Path:
    """A random Llama (``kind`` "mistral": a Mistral) with grouped-query attention (``kv_heads``)
    and its tokenizer (tokenizer.json: BPE over characters and word-initial ones, <unk> 0, <s> 1,
    </s> 2), which puts <s> before every prompt; ``options`` go to the config (rope_theta,
    attention_bias, mlp_bias, sliding_window ...)."""
    from transformers import LlamaConfig, LlamaForCausalLM, LlamaTokenizer, MistralConfig, MistralForCausalLM

    folder.mkdir(parents=True, exist_ok=True)
    chars = sorted({c for s in ENGLISH_SENTENCES for c in s.replace(" ", "")})
    table = {t: i for i, t in enumerate(("<unk>", "<s>", "</s>"))}
    for piece in ["▁", *chars, *("▁" + c for c in chars)]:
        table.setdefault(piece, len(table))
    tokenizer = LlamaTokenizer(vocab=table, merges=[("▁", c) for c in chars], add_bos_token=True)
    tokenizer.save_pretrained(folder)
    build, model = (MistralConfig, MistralForCausalLM) if kind == "mistral" else (LlamaConfig, LlamaForCausalLM)
    config = build(vocab_size=len(table), hidden_size=d_model, intermediate_size=ffn, num_hidden_layers=layers,
                   num_attention_heads=heads, num_key_value_heads=kv_heads, max_position_embeddings=64,
                   bos_token_id=1, eos_token_id=2, pad_token_id=None, tie_word_embeddings=tied, **options)
    _save_decoder(model(config), folder, seed, 2, eos_bias)
    return folder


def _save_decoder(model: torch.nn.Module, folder: Path, seed: int, eos: int, eos_bias: float) -> None:
    """Random weights with a spread that makes every map and choice count, the end token's output
    raised by ``eos_bias`` (through its output row: these models have no output bias), then
    ``save_pretrained`` (safetensors)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name or name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
        output = model.get_output_embeddings().weight
        output[eos] *= 1.0 + eos_bias
    model.eval().save_pretrained(folder)
