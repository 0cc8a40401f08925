"""Figures of Hugging Face models opened from a folder (needs the ``hf`` extra)."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from . import Unavailable, figure, seconds, size

WORDS = "ich du er sie wir das haus ein buch ist sehr gut klein alt neu und mit heute".split()
STEP = 10  # the step timed: the explorer has drawn ten rows of every map


def marian_folder(folder: Path, d_model: int = 512, heads: int = 8, layers: int = 6, d_ff: int = 2048) -> Path:
    """A random MarianMT model of opus-mt's size (small vocabulary) saved with its tokenizer."""
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    _sentencepiece(folder, "sp.model")
    pieces = [line.split("\t")[0] for line in (folder / "sp.vocab").read_text(encoding="utf-8").splitlines()]
    tokens = ["</s>", "<unk>", *(p for p in pieces if p != "<unk>"), "<pad>"]
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes((folder / "sp.model").read_bytes())
    MarianTokenizer(str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json")
                    ).save_pretrained(folder)
    config = MarianConfig(vocab_size=len(tokens), d_model=d_model, encoder_layers=layers, decoder_layers=layers,
                          encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=d_ff,
                          decoder_ffn_dim=d_ff, pad_token_id=len(tokens) - 1, eos_token_id=0,
                          decoder_start_token_id=len(tokens) - 1, scale_embedding=True,
                          activation_function="swish")
    model = MarianMTModel(config)
    model.final_logits_bias[0, 0] = -100.0  # never </s>: the sentence goes on past the step timed
    model.save_pretrained(folder)
    return folder


def m2m100_folder(folder: Path) -> Path:
    """A random M2M100 model (2 + 2 layers, d_model 64) with its tokenizer: vocab.json, a
    SentencePiece model and WMT21's eight language codes."""
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    _sentencepiece(folder, "sentencepiece.bpe.model")
    pieces = [line.split("\t")[0] for line in (folder / "sp.vocab").read_text(encoding="utf-8").splitlines()]
    tokens = ["<s>", "<pad>", "</s>", "<unk>", *(p for p in pieces if p != "<unk>")]
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    tokenizer = M2M100Tokenizer(str(folder / "vocab.json"), str(folder / "sentencepiece.bpe.model"), src_lang="de",
                                tgt_lang="en", language_codes="wmt21")
    tokenizer.save_pretrained(folder)
    rows = max(len(tokenizer), *(i + 1 for i in tokenizer.lang_token_to_id.values()))
    config = M2M100Config(vocab_size=rows, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                          decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                          max_position_embeddings=128)
    M2M100ForConditionalGeneration(config).save_pretrained(folder)
    return folder


def _sentencepiece(folder: Path, name: str) -> None:
    """``folder/name``, a SentencePiece model of the bench's words, and its ``sp.vocab``."""
    import random

    import sentencepiece as spm

    rng = random.Random(0)
    (folder / "text.txt").write_text("\n".join(" ".join(rng.choices(WORDS, k=8)) for _ in range(300)),
                                     encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(folder / "text.txt"), model_prefix=str(folder / "sp"), vocab_size=60,
                                   hard_vocab_limit=False, minloglevel=2, pad_id=-1, bos_id=-1, eos_id=-1, unk_id=0)
    (folder / "sp.model").rename(folder / name)


def _needs_hf() -> None:
    try:
        import sentencepiece  # noqa: F401
        import transformers
    except ImportError:
        raise Unavailable("needs transformers and sentencepiece: pip install 'transviz[hf]'") from None
    transformers.utils.logging.disable_progress_bar()  # save_pretrained's bar would cut into the table


# What the window does when a folder is opened: torch and transviz are loaded, transformers is not.
_LOAD = """
import sys, time
import transviz
from transviz.core.model.transformer import Transformer
started = time.perf_counter()
transviz.load_model(sys.argv[1])
print(time.perf_counter() - started)
"""


@figure("hf_load_s_m2m100_tiny", "s", 5.0, "lower")
def load_m2m100() -> float:
    """Opening a small random M2M100 folder in a process that has transviz and torch loaded but
    not transformers (the window's first Hugging Face folder), median of 3 fresh processes."""
    _needs_hf()
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    with tempfile.TemporaryDirectory() as folder:
        m2m100_folder(Path(folder))
        runs = [subprocess.run([sys.executable, "-c", _LOAD, folder], env=env, capture_output=True, text=True,
                               timeout=120, check=True) for _ in range(size(3))]
    return statistics.median(float(run.stdout.strip().splitlines()[-1]) for run in runs)


@figure("hf_step_ms_marian_tiny", "ms", 20.0, "lower")
def step_marian() -> float:
    """One explorer step with its redraw at step 10, on a random MarianMT folder of opus-mt's size
    (6 layers, d_model 512, 8 heads, small vocabulary), opened as a Hugging Face model."""
    _needs_hf()
    from .. import load_model
    from ..gui.app import use_offscreen_platform
    with tempfile.TemporaryDirectory() as folder:
        model = load_model(str(marian_folder(Path(folder))))
    use_offscreen_platform()
    return _step_ms(model)


def _step_ms(model: object, rounds: int = 9) -> float:
    """Median over ``rounds`` of the step from ``STEP`` to ``STEP + 1``: the session steps, every
    view redraws, the event loop paints (1400 x 900, cross attention shown)."""
    from ..core.teaching.workspace import Workspace
    from ..gui.app import application, dispose
    from ..gui.panels.explorer import ExplorerPanel

    app = application()
    panel = ExplorerPanel(Workspace())
    panel.resize(1400, 900)
    panel.show()
    panel.workspace.set_model(model, sentence=" ".join(WORDS[:12]))  # type: ignore[arg-type]
    app.processEvents()
    controller = panel.controller

    def step_and_redraw() -> None:
        if not controller.step():
            raise RuntimeError("the bench sentence stopped before the step timed")
        for _ in range(2):  # scenes post their updates, then paint
            app.processEvents()

    times = []
    try:
        for _ in range(size(rounds) + 1):  # the first round warms up
            controller.reset()
            for _ in range(STEP):
                step_and_redraw()
            times.append(seconds(step_and_redraw))
        return 1000 * statistics.median(times[1:])
    finally:
        dispose(panel)
