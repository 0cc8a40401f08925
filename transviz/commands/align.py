"""``transviz align``: which cross-attention heads align. Each head's strongest source token at every
target step, teacher forced on the gold target, against the gold alignment: how often it is a gold
source word (accuracy) and the alignment error rate of those links; the heads ranked, each layer's
mean map, and one sentence under the best head beside its gold alignment."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from . import model_or_default

if TYPE_CHECKING:
    from ..core.analysis.alignment_heads import HeadAlignment


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("align", help="which cross-attention heads align source and target words",
                                 description="Teacher-force the gold target of each pair and score every "
                                             "cross-attention head (and each layer's mean map) by how often its "
                                             "strongest source token at a target step is a gold-aligned word "
                                             "(accuracy), and by the alignment error rate (AER) of those links. "
                                             "Layers and heads count from 0.")
    parser.add_argument("--model", metavar="FILE",
                        help="a .safetensors checkpoint or shipped model (default: the shipped default model)")
    parser.add_argument("--data", choices=("test", "valid"), default="test",
                        help="the split of the model's task, with the task's gold alignments (default: test)")
    parser.add_argument("--corpus", metavar="FILE", help="a source<TAB>target file of your own, with --alignments")
    parser.add_argument("--alignments", metavar="FILE",
                        help="one line of links per corpus line: 0-0 1-2 (sure), 0p1 or 0?1 (possible), counted "
                             "from 0 over the model's tokens")
    parser.add_argument("--example", type=int, default=0, metavar="N",
                        help="the pair (from 0) shown under the best head beside its gold alignment (default: 0)")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.analysis.alignment_heads import alignment_heads, gold_pairs
    from ..core.base.errors import InputError
    from ..core.base.messages import translate_noop

    if (args.corpus is None) != (args.alignments is None):
        raise InputError(translate_noop("CoreMessages", "{0} and {1} go together: a corpus and its file of "
                                                        "alignments"), "--corpus", "--alignments")
    model = model_or_default(args.model)
    pairs = gold_pairs(model, args.corpus or args.data, args.alignments)
    found = alignment_heads(model, pairs, args.example)
    task = model.facts.get("task")
    where = f"{args.corpus} with {args.alignments}" if args.corpus else f"the {args.data} split of {task}"
    if args.json:
        print(json.dumps(_as_json(model.path, where, found)))
    else:
        print(_report(where, found))
    return 0


def _report(where: str, found: HeadAlignment) -> str:
    lines = [f"cross-attention heads against gold alignments: {where}, {found.sentences} pairs",
             f"accuracy: the share of the {found.steps} target tokens with a gold link whose strongest source "
             "token is a gold one",
             f"AER: the alignment error rate of those links, one per target token, against {found.sure_links} sure "
             f"links (a perfect head's: {found.aer_floor:.3f})",
             f"{'rank':>4}  {'head':<6} {'accuracy':>9} {'AER':>7}"]
    lines += [f"{rank:>4}  L{layer}H{head:<3} {found.accuracy[layer, head]:>8.1%} {found.aer[layer, head]:>7.3f}"
              for rank, (layer, head) in enumerate(found.ranking, 1)]
    lines.append("layer means (the mean of each layer's heads' maps): " + "  ".join(
        f"L{layer} {accuracy:.1%} AER {aer:.3f}"
        for layer, (accuracy, aer) in enumerate(zip(found.layer_accuracy, found.layer_aer, strict=True))))
    if found.example is not None:
        lines += ["", *_example(found)]
    return "\n".join(lines)


def _example(found: HeadAlignment) -> list[str]:
    """The chosen pair, a target token a line: the best head's source token beside the gold ones."""
    example = found.example
    assert example is not None
    layer, head = example.head
    source = example.source_tokens
    chosen = {j: source[i] for i, j in example.predicted}
    lines = [f"L{layer}H{head} on {' '.join(source)!r}: target token, the head's source token, the gold one(s) "
             "(a possible link in parentheses; * where the head misses)"]
    width = max(len(t) for t in example.target_tokens)
    for j, token in enumerate(example.target_tokens):
        gold = [source[i] if (i, j) in example.sure else f"({source[i]})" for i, t in example.possible if t == j]
        mark = "*" if gold and chosen.get(j) not in {source[i] for i, t in example.possible if t == j} else " "
        lines.append(f"  {token:<{width}}  {mark} {chosen.get(j, '-'):<12} {' '.join(gold) or '-'}")
    return lines


def _as_json(path: str | None, where: str, found: HeadAlignment) -> dict[str, Any]:
    example = found.example
    return {"model": path, "data": where, "sentences": found.sentences, "steps": found.steps,
            "tokens": found.tokens, "sure_links": found.sure_links, "aer_floor": found.aer_floor,
            "accuracy": found.accuracy.tolist(), "aer": found.aer.tolist(),
            "layer_accuracy": found.layer_accuracy.tolist(), "layer_aer": found.layer_aer.tolist(),
            "ranking": [list(h) for h in found.ranking],
            "example": None if example is None else {
                "source_tokens": list(example.source_tokens), "target_tokens": list(example.target_tokens),
                "head": list(example.head), "predicted": [list(link) for link in example.predicted],
                "sure": [list(link) for link in example.sure], "possible": [list(link) for link in example.possible]}}
