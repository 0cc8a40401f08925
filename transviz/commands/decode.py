"""``transviz decode SENTENCE``: translate in the terminal, step by step, with text heatmaps,
JSON or ``.npz`` output, or an interactive step-through REPL."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..core.base.errors import InputError
from . import model_or_default
from .intervention_flags import add_flags, interventions

if TYPE_CHECKING:
    from ..core.decoding.session import DecodingSession, StepRecord
    from ..core.decoding.strategies import Strategy
    from ..core.decoding.trace import Trace
    from ..core.model.config import ModelConfig

SHOW = ("cross", "decoder", "encoder")
REPL_HELP = "Enter: step   b: back   f WORD: force WORD as the next token (marked *)   q: quit"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("decode", help="translate a sentence and show each step and its attention",
                                 description="Translate SENTENCE one token at a time and show what the model saw.")
    parser.add_argument("sentence", help="the sentence to translate")
    parser.add_argument("--model", metavar="FILE",
                        help="a .safetensors checkpoint (default: the shipped default model)")
    strategy = parser.add_argument_group("strategy")
    strategy.add_argument("--strategy", choices=("greedy", "sample", "sampling", "beam"),
                          help="how the next token is chosen (default greedy; --beam implies beam, sampling "
                               "options imply sampling)")
    strategy.add_argument("--beam", type=int, metavar="N", help="beam width (default 4)")
    strategy.add_argument("--length-penalty", type=float, metavar="A",
                          help="beam ranking: score / length**A (default 1)")
    strategy.add_argument("--temperature", type=float, metavar="T", help="sampling temperature (default 1)")
    strategy.add_argument("--top-k", type=int, metavar="K", help="sample among the K most probable tokens (0: all)")
    strategy.add_argument("--top-p", type=float, metavar="P", help="sample from the smallest set with probability >= P")
    strategy.add_argument("--seed", type=int, help="sampling seed (default: a random one, printed)")
    strategy.add_argument("--reference", metavar="TEXT", help="teacher forcing: feed this target instead of choosing")
    parser.add_argument("--max-len", type=int, default=50, metavar="N", help="stop after N tokens (default 50)")
    parser.add_argument("--candidates", type=int, default=3, metavar="K", help="candidates listed per step (default 3)")
    show = parser.add_argument_group("attention heatmap")
    show.add_argument("--show", choices=SHOW, help="print this attention matrix as a text heatmap")
    show.add_argument("--layer", type=int, metavar="L", help="layer to show, 0 = first (default: the last)")
    show.add_argument("--head", metavar="H", help="head to show, 0 = first, or 'mean' (default)")
    show.add_argument("--values", action="store_true", help="print the values in the heatmap cells")
    add_flags(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print the whole trace as JSON instead of text")
    output.add_argument("--npz", metavar="FILE", help="write the attention arrays and tokens to FILE (.npz)")
    output.add_argument("--force", action="store_true",
                        help="let --npz replace an existing file that is not an .npz archive")
    output.add_argument("--interactive", action="store_true", help="step through the translation yourself")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.decoding.session import DecodingSession
    from ..core.decoding.trace_files import trace_dict, write_npz
    from ..core.io.outputs import NPZ, check_output

    if args.candidates < 0:
        raise InputError(f"--candidates must be 0 or more, not {args.candidates}")
    model = model_or_default(args.model)
    if args.npz:  # refused before any decoding, and never the model it reads
        check_output(args.npz, NPZ, inputs=[model.path], force=args.force)
    layer, head = _view(args, model.config)  # bad heatmap options fail before any decoding
    session = DecodingSession(model, args.sentence, strategy=_strategy(args), top_k=max(1, args.candidates),
                              max_len=args.max_len, reference=args.reference, interventions=interventions(args))
    if args.interactive:
        _repl(session, args.candidates)
    else:
        session.run_to_end()
    if args.npz:
        write_npz(session, args.npz)
    if args.json:
        print(json.dumps(trace_dict(session)))
        return 0
    if not args.interactive:
        print(_report(session, args.candidates))
    if args.show:
        print()
        print(_heatmap(session, args.show, layer, head, args.values))
    return 0


# -- model and strategy -----------------------------------------------------------------------

def _strategy(args: argparse.Namespace) -> Strategy:
    from ..core.decoding.strategies import Beam, Greedy, Sampling

    beam_options = {"width": args.beam, "length_penalty": args.length_penalty}
    sampling_options = {"temperature": args.temperature, "top_k": args.top_k, "top_p": args.top_p, "seed": args.seed}
    name = args.strategy or ("beam" if _given(beam_options) else "sampling" if _given(sampling_options) else "greedy")
    name = "sampling" if name == "sample" else name
    if args.reference is not None and (args.strategy or name != "greedy"):
        raise InputError("--reference feeds the target itself: strategy options do not apply")
    if name != "beam" and _given(beam_options):
        raise InputError("--beam and --length-penalty apply to --strategy beam")
    if name != "sampling" and _given(sampling_options):
        raise InputError("--temperature, --top-k, --top-p and --seed apply to --strategy sample")
    if name == "beam":
        return Beam(**{k: v for k, v in beam_options.items() if v is not None})
    if name == "sampling":
        return Sampling(**{k: v for k, v in sampling_options.items() if v is not None})
    return Greedy()


def _given(options: dict[str, Any]) -> bool:
    return any(v is not None for v in options.values())


def _describe_strategy(session: DecodingSession) -> str:
    if session.teacher_forcing:
        return "teacher forcing (the reference is fed; the model's own prediction is shown beside it)"
    settings = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in asdict(session.strategy).items())
    return session.strategy.name + (f" ({settings})" if settings else "")


# -- text report ------------------------------------------------------------------------------

def _step_line(record: StepRecord, candidates: int) -> str:
    from ..textplot import abbreviate, pad

    token = pad(abbreviate(record.token, 12) + ("*" if record.forced else ""), 13)
    if record.gold_token is not None:
        verdict = "right" if record.predicted_token == record.gold_token else "wrong"
        return f"{record.index + 1:4}  {token} {record.probability:6.3f}   model predicted " \
               f"{abbreviate(record.predicted_token, 12)} ({verdict})"
    listed = _separator().join(f"{abbreviate(c.token, 10)} {c.probability:.3f}" for c in record.candidates[:candidates])
    return f"{record.index + 1:4}  {token} {record.probability:6.3f}   {listed}"


def _terminal_shows(text: str) -> bool:
    """Whether stdout's encoding can write ``text`` (an ASCII terminal cannot write the blocks)."""
    from ..textplot import can_show

    return can_show(text, getattr(sys.stdout, "encoding", None))


def _separator() -> str:
    return " \u00b7 " if _terminal_shows("\u00b7") else " | "  # "?" would read as the token "?"


def _report(session: DecodingSession, candidates: int) -> str:
    trace = session.trace()
    lines = [f"{'reference' if session.teacher_forcing else 'translation'}: {trace.translation}",
             f"strategy: {_describe_strategy(session)}"]
    if session.unknown_tokens:
        words = ", ".join(t for _, t in session.unknown_tokens)
        lines.append(f"not in the vocabulary (read as <unk>): {words}")
    if session.interventions:
        lines += _intervention_lines(session)
    if session.beam is not None:
        lines += _beam_lines(session, trace)
    else:
        title = "p(gold)" if session.teacher_forcing else "p"
        shown = "" if session.teacher_forcing else f"top-{candidates} candidates"
        header = f"step  {'token':13} {title:>6}   " + shown
        lines.append(header.rstrip())
        lines += [_step_line(record, candidates) for record in session.history]
    lines.append(f"stopped: {_stop_text(session.stop_reason, session.max_len)}")
    return "\n".join(lines)


def _intervention_lines(session: DecodingSession) -> list[str]:
    """What ran differently, and what the unchanged model gives with the same strategy."""
    from ..core.decoding.session import DecodingSession

    lines = [f"intervention: {item}" for item in session.interventions]
    if not session.teacher_forcing:
        plain = DecodingSession(session.model, session.source, session.strategy,
                                max_len=session.max_len)
        plain.run_to_end()
        same = " (the same)" if plain.output_tokens == session.output_tokens else ""
        lines.append(f"without interventions: {plain.trace().translation}{same}")
    return lines


def _beam_lines(session: DecodingSession, best: Trace) -> list[str]:
    """The best hypothesis token by token, then the whole final beam."""
    from ..core.decoding.strategies import Beam
    from ..textplot import abbreviate, pad

    beam, strategy = session.beam, session.strategy
    assert beam is not None and isinstance(strategy, Beam)  # the report's beam-search part
    lines = [f"step  {'token':13} {'p':>6}   (the best hypothesis)"]
    lines += [f"{i:4}  {pad(abbreviate(token, 12), 13)} {p:6.3f}"
              for i, (token, p) in enumerate(zip(best.output_tokens, best.output_probabilities, strict=True), 1)]
    lines.append(f"final beam: score = summed log-probability, ranked by score / length^{strategy.length_penalty:g}")
    for i, h in enumerate(beam.hypotheses, 1):
        ended = "" if h.finished else "  (unfinished)"
        lines.append(f"{i:4}  {h.score:9.3f}  {h.normalized_score:8.3f}  {' '.join(h.tokens)}{ended}")
    return lines


def _stop_text(reason: str | None, max_len: int) -> str:
    return {"end": "end token", "max_len": f"length limit ({max_len} tokens)"}.get(reason or "", "not yet")


# -- heatmap ----------------------------------------------------------------------------------

def _view(args: argparse.Namespace, config: ModelConfig) -> tuple[int, int | None]:
    """The layer and head (None: the mean of the heads) that ``--show`` draws, 0 = first, as the
    window, ``render`` and the interventions count them."""
    if args.show is None:
        given = [flag for flag, value in (("--layer", args.layer), ("--head", args.head), ("--values", args.values))
                 if value not in (None, False)]
        if given:
            raise InputError(f"{', '.join(given)} {'goes' if len(given) == 1 else 'go'} with --show "
                             f"({', '.join(SHOW)}): say which attention to print")
        return 0, None
    layers = config.n_encoder_layers if args.show == "encoder" else config.n_decoder_layers
    layer = layers - 1 if args.layer is None else args.layer
    if not 0 <= layer < layers:
        raise InputError(f"there is no layer {layer}: the {args.show} attention has layers 0 to {layers - 1}")
    head = None if args.head in (None, "mean") else _head_number(args.head, config.n_heads)
    return layer, head


def _heatmap(session: DecodingSession, show: str, layer: int, head: int | None, values: bool) -> str:
    from ..core.decoding.trace import query_labels
    from ..core.model.masks import causal_mask
    from ..textplot import HIDDEN, SHADES, heatmap, printable

    matrices = {"cross": session.cross_attention(), "decoder": session.decoder_self_attention(),
                "encoder": session.encoder_attention}
    array = matrices[show]  # (L, H, Q, K)
    layers, heads = array.shape[:2]
    if head is None:
        matrix, head_text = array[layer].mean(axis=0), f"mean of {heads} heads"
    else:
        matrix, head_text = array[layer, head], f"head {head} of 0-{heads - 1}"
    target, source = session.target_tokens, session.source_tokens
    queries = query_labels([printable(t) for t in target], [printable(t) for t in session.output_tokens])
    rows, columns, what = {
        "cross": (queries, source, "rows: decoder input -> written token (queries), columns: source tokens (keys)"),
        "decoder": (queries, target, "rows: decoder input -> written token (queries), columns: decoder inputs "
                                     "(keys)"),
        "encoder": (source, source, "rows: source tokens (queries), columns: source tokens (keys)"),
    }[show]
    allowed = causal_mask(len(target))[0, 0].numpy() if show == "decoder" else None
    title = f"{show} attention, layer {layer} of 0-{layers - 1}, {head_text}; {what}"
    return title + "\n\n" + heatmap(matrix, rows, columns, values=values, allowed=allowed,
                                     literal_rows=show != "encoder",
                                     ascii_only=not _terminal_shows(SHADES + HIDDEN + "\u2265"))


def _head_number(text: str, heads: int) -> int:
    try:
        head = int(text)
    except ValueError:
        raise InputError(f"--head takes a number from 0 to {heads - 1} or 'mean', not {text!r}") from None
    if not 0 <= head < heads:
        raise InputError(f"there is no head {head}: this model has heads 0 to {heads - 1}")
    return head


# -- interactive ------------------------------------------------------------------------------

def _repl(session: DecodingSession, candidates: int) -> None:
    print(f"source: {' '.join(session.source_tokens)}")
    print(f"strategy: {_describe_strategy(session)}")
    print(REPL_HELP)
    while True:
        try:
            command = input("> ").strip()
        except EOFError:  # Ctrl-D, or the end of piped input
            print()
            break
        if command == "q":
            break
        try:
            message = _repl_command(session, command, candidates)
        except InputError as exc:
            message = f"! {exc}"
        print(message)
    print(f"translation: {session.trace().translation}")
    sys.stdout.flush()


def _repl_command(session: DecodingSession, command: str, candidates: int) -> str:
    if command == "":
        record = session.step()
    elif command == "b":
        session.back()
        return f"back to step {session.position}: {' '.join(session.output_tokens) or '(nothing yet)'}"
    elif command.startswith("f ") or command == "f":
        record = session.force(command[2:])
    else:
        return f"! unknown command {command!r}; {REPL_HELP}"
    line = _step_line(record, candidates)
    if record.stop:
        line += f"\nstopped: {_stop_text(record.stop, session.max_len)} (b goes back, q quits)"
    return line
