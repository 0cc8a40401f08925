"""Weight sharing counted: every figure equals torch's own count of a Transformer built with those
settings, and the shared recipe's model really uses one table for both sides and the output."""
from __future__ import annotations

import dataclasses

import pytest
import torch

import transviz
from transviz.core.analysis.concepts.sharing import sharing
from transviz.core.data.tasks import load_task
from transviz.core.model.transformer import Transformer
from transviz.core.training.recipes import RECIPES
from transviz.core.training.train import build_model


def counted(config, vocab: int | None = None, **flags) -> int:
    """torch's count of a model of ``config`` with other sharing flags (and vocabulary sizes)."""
    sizes = {} if vocab is None else {"src_vocab_size": vocab, "tgt_vocab_size": vocab}
    return Transformer(dataclasses.replace(config, **sizes, **flags)).parameter_count()


@pytest.fixture(scope="module")
def shared_model():
    recipe = RECIPES["toy-de-en-shared"]
    return build_model(load_task(recipe.task), recipe.train, **recipe.model)


def test_a_model_without_sharing_and_what_sharing_would_save():
    model = transviz.load_model("default")
    found = sharing(model)
    joint = len(set(model.src_vocab.itos) | set(model.tgt_vocab.itos))
    assert not found.shares_embeddings and not found.ties_output and found.tied_difference is None
    assert found.stored == found.unshared == sum(p.numel() for p in model.net.parameters())
    assert found.joint_vocab == joint
    assert found.shared == counted(model.config, joint, share_embeddings=True, tie_output=True)
    assert found.saved == 0


def test_the_shared_recipe_shares_one_table_and_ties_the_output(shared_model):
    net = shared_model.net
    assert net.src_embed is net.tgt_embed and net.generator.weight is net.tgt_embed.weight
    assert shared_model.src_vocab.itos == shared_model.tgt_vocab.itos  # one joint vocabulary
    found = sharing(shared_model)
    assert found.shares_embeddings and found.ties_output and found.tied_difference == 0.0
    assert found.stored == found.shared == net.parameter_count()
    assert found.unshared == counted(shared_model.config, share_embeddings=False, tie_output=False)
    assert found.saved == 2 * found.joint_vocab * found.d_model  # a table and the output weight


def test_tied_rows_stay_equal_after_a_training_step(shared_model):
    net = shared_model.net
    optimiser = torch.optim.SGD(net.parameters(), lr=0.1)
    source, target = torch.tensor([[5, 6, 7]]), torch.tensor([[1, 8, 9]])
    net(source, target).logits.logsumexp(-1).sum().backward()
    optimiser.step()
    assert sharing(shared_model).tied_difference == 0.0


def test_the_shareable_tables_are_the_models_own_tensors(shared_model):
    model = transviz.load_model("default")
    found = sharing(model)
    net = model.net
    own = (net.src_embed.weight.numel(), net.tgt_embed.weight.numel(), net.generator.weight.numel())
    assert found.tables(False, False) == own
    assert found.unshared - found.shared == sum(own) - sum(found.tables(True, True)) - (found.joint_vocab
                                                                                      - found.tgt_vocab)  # bias
    joint = sharing(shared_model)
    assert joint.tables(True, True) == (shared_model.net.src_embed.weight.numel(), 0, 0)
