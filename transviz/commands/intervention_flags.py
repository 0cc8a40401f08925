"""The command-line form of interventions (:mod:`transviz.core.decoding.interventions`), shared by the
commands that run a model: ``--ablate cross:1:2[:MODE]``, ``--scale F[:KIND[:LAYER]]``,
``--scale-head KIND:LAYER:HEAD:F``, ``--tie-qk KIND:LAYER[:HEAD]`` and ``--no-positions [SIDE]``.
Layers and heads count from 0, as in the window and the Python API."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..core.base.errors import InputError

if TYPE_CHECKING:
    from ..core.decoding.interventions import Intervention

ABLATE = "KIND:LAYER:HEAD[:MODE]"


def add_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("interventions (layers and heads count from 0, as in the window)")
    group.add_argument("--ablate", action="append", default=[], metavar=ABLATE,
                       help="switch a head off; KIND is encoder_self, decoder_self or cross; MODE is zero (default), "
                            "uniform, mean, or copy:L:H to use the pattern of head H of layer L; repeatable")
    group.add_argument("--scale", action="append", default=[], metavar="F[:KIND[:LAYER]]",
                       help="multiply the 1/sqrt(d_k) scaling of the scores by F (0: uniform attention), "
                            "everywhere or in one kind or layer; repeatable")
    group.add_argument("--scale-head", action="append", default=[], metavar="KIND:LAYER:HEAD:F",
                       help="multiply one head's scaled scores by F (0: it attends uniformly); repeatable")
    group.add_argument("--tie-qk", action="append", default=[], metavar="KIND:LAYER[:HEAD]",
                       help="compute the queries with the key weights (Q = K) in a layer, or one head; repeatable")
    group.add_argument("--no-positions", nargs="?", const="both", choices=("encoder", "decoder", "both"),
                       help="leave the positional encoding out (default: of both stacks)")


def interventions(args: argparse.Namespace) -> list[Intervention]:
    """The interventions the flags ask for, in the order of the flags' kinds."""
    from ..core.decoding.interventions import NoPositions

    found: list[Intervention] = [_ablation(text) for text in args.ablate]
    found += [_scale(text) for text in args.scale]
    found += [_scale_head(text) for text in args.scale_head]
    found += [_tie(text) for text in args.tie_qk]
    if args.no_positions:
        found.append(NoPositions(args.no_positions))
    return found


def _numbers(parts: list[str], flag: str, text: str) -> list[int]:
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise InputError(f"{flag} {text!r}: layers and heads are whole numbers counted from 0") from None


def _ablation(text: str) -> Intervention:
    from ..core.decoding.interventions import AblateHead

    parts = text.split(":")
    if len(parts) not in (3, 4, 6) or (len(parts) == 6) != (parts[3:4] == ["copy"]):
        raise InputError(f"--ablate {text!r}: write {ABLATE}, e.g. cross:1:2, cross:1:2:uniform or cross:1:2:copy:0:3")
    layer, head = _numbers(parts[1:3], "--ablate", text)
    mode = parts[3] if len(parts) > 3 else "zero"
    source = tuple(_numbers(parts[4:], "--ablate", text)) if mode == "copy" else None
    kind: Any = parts[0]  # checked by the intervention, which names the three kinds
    return AblateHead(kind, layer, head, mode, source)  # type: ignore[arg-type]


def _scale(text: str) -> Intervention:
    from ..core.decoding.interventions import ScaleScores

    factor, *rest = text.split(":")
    if len(rest) > 2:
        raise InputError(f"--scale {text!r}: write F, F:KIND or F:KIND:LAYER, e.g. 0.5:cross:1")
    try:
        value = float(factor)
    except ValueError:
        raise InputError(f"--scale {text!r}: the factor must be a number, e.g. 0.5") from None
    layer = _numbers(rest[1:], "--scale", text)[0] if len(rest) == 2 else None
    kind: Any = rest[0] if rest else None
    return ScaleScores(value, kind, layer)


def _scale_head(text: str) -> Intervention:
    from ..core.decoding.interventions import ScaleHead

    parts = text.split(":")
    if len(parts) != 4:
        raise InputError(f"--scale-head {text!r}: write KIND:LAYER:HEAD:F, e.g. cross:1:2:0.5")
    layer, head = _numbers(parts[1:3], "--scale-head", text)
    try:
        factor = float(parts[3])
    except ValueError:
        raise InputError(f"--scale-head {text!r}: the factor must be a number, e.g. 0.5") from None
    kind: Any = parts[0]  # checked by the intervention
    return ScaleHead(kind, layer, head, factor)


def _tie(text: str) -> Intervention:
    from ..core.decoding.interventions import TieQueryKey

    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise InputError(f"--tie-qk {text!r}: write KIND:LAYER or KIND:LAYER:HEAD, e.g. encoder_self:0")
    numbers = _numbers(parts[1:], "--tie-qk", text)
    kind: Any = parts[0]
    return TieQueryKey(kind, numbers[0], numbers[1] if len(numbers) == 2 else None)
