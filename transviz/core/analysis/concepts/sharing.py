"""Weight sharing (seed 001's last question): one embedding table for the source and the target
(a joint vocabulary), and an output layer whose weight is the target embedding itself. This
module counts what the loaded model stores, what it would store with neither and with both, and
checks that a tied output layer's rows are the embedding's rows."""
from __future__ import annotations

from dataclasses import dataclass

from ...model.bundle import Model


@dataclass(frozen=True)
class Sharing:
    """The parameters of the tables that can be shared, and of the whole model, three ways.

    ``joint_vocab`` is the size of one vocabulary holding both sides' tokens (the model's own when
    it shares). ``tied_difference`` is the largest difference between the output layer's weight
    and the target embedding (0.0 when tied), None when the model does not tie them."""

    d_model: int
    src_vocab: int
    tgt_vocab: int
    joint_vocab: int
    shares_embeddings: bool
    ties_output: bool
    stored: int  # the model's distinct parameters
    unshared: int  # the same model with neither kind of sharing
    shared: int  # with a joint vocabulary, one table, and the output tied to it
    tied_difference: float | None

    def tables(self, share: bool, tie: bool) -> tuple[int, int, int]:
        """Parameters of the source table, the target table (0: it is the source's) and the output
        weight (0: it is the target table), with those kinds of sharing."""
        vocab_src, vocab_tgt = (self.joint_vocab, self.joint_vocab) if share else (self.src_vocab, self.tgt_vocab)
        d = self.d_model
        return vocab_src * d, 0 if share else vocab_tgt * d, 0 if tie else vocab_tgt * d

    @property
    def saved(self) -> int:
        """What the model's own sharing saves against none."""
        return self.unshared - self.stored


def _tables(src: int, tgt: int, joint: int, d: int, share: bool, tie: bool) -> int:
    """Parameters of the embedding tables and the output layer's weight (its bias is never shared)."""
    embeddings = joint * d if share else (src + tgt) * d
    return embeddings + (0 if tie else (joint if share else tgt) * d)


def sharing(model: Model) -> Sharing:
    """How much of ``model`` is shared tables, and what sharing would change."""
    cfg, net = model.config, model.net
    src, tgt, d = cfg.src_vocab_size, cfg.tgt_vocab_size, cfg.d_model
    joint = src if cfg.share_embeddings else len(set(model.src_vocab.itos) | set(model.tgt_vocab.itos))
    stored = sum(p.numel() for p in net.parameters())  # torch lists a shared tensor once
    own = _tables(src, tgt, joint, d, cfg.share_embeddings, cfg.tie_output)
    rest = stored - own
    # the output layer's bias has one entry per target token: it grows with a joint vocabulary
    bias = 0 if cfg.share_embeddings else joint - tgt
    difference = None
    if cfg.tie_output:
        difference = float((net.generator.weight - net.tgt_embed.weight).detach().abs().max())
    return Sharing(d, src, tgt, joint, cfg.share_embeddings, cfg.tie_output, stored,
                   rest + _tables(src, tgt, joint, d, False, False),
                   rest + bias + _tables(src, tgt, joint, d, True, True), difference)

