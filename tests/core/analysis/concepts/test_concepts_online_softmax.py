"""The online softmax against the ordinary one, block by block: after each block the output is the
softmax of the keys so far times their values (float64, written out here), the running maximum and
sum are those keys' own, and after the last block the row is the model's own head output (torch's
``scaled_dot_product_attention`` on the head's queries, keys and values)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.head import head_attention
from transviz.core.analysis.concepts.online_softmax import flash_row, online_softmax
from transviz.core.base.errors import InputError

SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))


def softmax_of(scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    scores = scores.astype(np.float64)
    e = np.exp(scores - scores.max())
    return (e / e.sum()) @ values.astype(np.float64)


@pytest.mark.parametrize("name", ["default", "decoder-only"])
@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
@pytest.mark.parametrize("block", [1, 2, 3, 64])
def test_each_block_gives_the_softmax_of_the_keys_so_far(name, kind, block):
    model = transviz.load_model(name)
    shown = flash_row(model, SENTENCE, kind, 1, 2, block)
    assert len(shown.partial) == -(-len(shown.scores) // block)
    for j, end in enumerate(shown.ends):
        seen = shown.scores[:end]
        np.testing.assert_allclose(shown.partial[j], softmax_of(seen, shown.values[:end]), atol=2e-6)
        assert shown.running_max[j] == seen.max()
        np.testing.assert_allclose(shown.running_sum[j], np.exp(seen.astype(np.float64) - seen.max()).sum(),
                                   rtol=1e-6)
    walk = head_attention(model, SENTENCE, kind, 1, 2)
    row = len(walk.query_tokens) - 1
    scale = model.net.attention_modules()[kind, 1].scale
    mask = torch.from_numpy(walk.mask[row])
    output = F.scaled_dot_product_attention(*(torch.from_numpy(t)[None] for t in (
        walk.queries[row:row + 1], walk.keys, walk.values)), attn_mask=mask[None], scale=scale)[0, 0]
    np.testing.assert_allclose(shown.partial[-1], output.numpy(), atol=2e-6)
    assert shown.error < 1e-5


def test_blocks_of_masked_keys_change_nothing_until_a_key_is_seen():
    scores = np.array([-np.inf, -np.inf, 1.5, -0.5, -np.inf], np.float32)
    values = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    peaks, totals, partial = online_softmax(scores, values, 2)
    assert peaks[0] == -np.inf and totals[0] == 0 and np.isnan(partial[0]).all()  # nothing seen yet
    np.testing.assert_allclose(partial[-1], softmax_of(scores[2:4], values[2:4]), atol=1e-6)
    np.testing.assert_allclose(partial[1], partial[2], atol=0)  # the last block is masked: no change


def test_a_block_holds_one_key_or_more():
    with pytest.raises(InputError, match="a block holds 1 to 64 keys"):
        flash_row(transviz.load_model("default"), SENTENCE, "cross", 0, 0, 0)
