"""``Evaluation.bleu`` is sacrebleu's corpus BLEU of the greedy translations against the targets."""
import pytest
import sacrebleu

import transviz
from decoding_models import one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.core.data.dataset import Pair
from transviz.core.training.evaluate import evaluate

SOURCES = ["ich mochte ein bier", "das ist gut", "ich mochte trinken", "bier ist gut", "das bier", "ein bier trinken"]
MAX_LEN = 10


def near_miss(hypothesis: str, i: int) -> str:
    """The hypothesis with one word changed (a reference the model almost matches), or kept for even i."""
    words = hypothesis.split()
    if i % 2 == 0 or not words:
        return hypothesis
    words[i % len(words)] = "good" if words[i % len(words)] != "good" else "that"
    return " ".join(words)


def test_bleu_is_sacrebleus_corpus_bleu_of_the_greedy_translations():
    model = tiny_model()
    # the hypotheses come from the step-by-step session, not from evaluation's batched decoder
    hypotheses = [transviz.decode(model, s, max_len=MAX_LEN).translation for s in SOURCES]
    references = [near_miss(h, i) for i, h in enumerate(hypotheses)]
    evaluation = evaluate(model, [Pair(s, r) for s, r in zip(SOURCES, references, strict=True)], max_len=MAX_LEN)
    expected = sacrebleu.corpus_bleu(hypotheses, [references]).score
    assert 0 < expected < 100  # partly right, so a wrong pairing of outputs and targets would change it
    assert evaluation.bleu == pytest.approx(expected, abs=1e-9)
    assert evaluation.exact_match == pytest.approx(3 / 6)

