"""``transviz class [SENTENCE]``: a live class run from a terminal, without the window. It serves the
class on the local network, prints the join address, the code and a QR code, and takes the
teacher's commands from stdin, one a line (:data:`HELP`). The module is not named ``class``: that
is a Python keyword."""
from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.base.errors import InputError, TransvizError
from . import model_or_default

if TYPE_CHECKING:
    from ..core.decoding.session import DecodingSession
    from ..live.events import Event
    from ..live.room import QuestionSummary, Tally
    from ..live.server import ClassServer

HELP = """commands, one a line:
  Enter or n   step: decode one more token and show it      b            back one step
  s SENTENCE   a new sentence                               ask          ask which token comes next
  test pre|post|off  label the questions that follow        close        close the question
  reveal       tell each student whether they were right    who          list the students
  kick NAME    remove a student                             summary      each question's results
  export FILE  write every answer as CSV                    help         this list
  q            stop the class (so does the end of input)"""


def register(commands: argparse._SubParsersAction) -> None:
    from ..live.protocol import DEFAULT_PORT, HEAD_KINDS

    parser = commands.add_parser(
        "class", help="run a live class from the terminal: students join from a browser and answer",
        description="Serve a live class on the local network: students open the printed address (or scan the QR "
                    "code) in a browser, follow the decoding you step through and answer your questions. "
                    "Commands are read from stdin, one a line (type help).")
    parser.add_argument("sentence", nargs="?", help="the sentence to translate (default: the model's first example)")
    parser.add_argument("--model", metavar="FILE",
                        help="a .safetensors checkpoint (default: the shipped default model)")
    parser.add_argument("--host", default="0.0.0.0",
                        help="the address to listen on (default 0.0.0.0: every network of this computer)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"the port to listen on (default {DEFAULT_PORT}: open it on the firewall; 0: any)")
    parser.add_argument("--code", help="the join code (default: a fresh random one)")
    parser.add_argument("--kind", choices=HEAD_KINDS, default="cross",
                        help="the attention students see (default cross)")
    parser.add_argument("--layer", type=int, default=-1, metavar="L", help="its layer, 0 = first (default: the last)")
    parser.add_argument("--head", default="mean", metavar="H", help="its head, 0 = first, or 'mean' (default)")
    parser.add_argument("--candidates", type=int, default=5, metavar="K",
                        help="candidates shown per step, and choices of a question (2 to 9, default 5)")
    parser.add_argument("--max-len", type=int, default=50, metavar="N", help="stop after N tokens (default 50)")
    parser.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    parser.set_defaults(func=run)


class _Host:
    """The class's state in the terminal: the session, the server, what is shown and asked."""

    def __init__(self, args: argparse.Namespace) -> None:
        from ..core.decoding.session import DecodingSession

        self.args = args
        self.model = model_or_default(args.model)
        if not 2 <= args.candidates <= 9:
            raise InputError("--candidates must be from 2 to 9, not {0}", args.candidates)
        self.head = None if args.head == "mean" else _number(args.head, "--head")
        self._check_view()
        self.session: DecodingSession = DecodingSession(self.model, self._first_sentence(), top_k=args.candidates,
                                                        max_len=args.max_len)
        self.name = Path(self.model.path).stem if self.model.path else str(self.model.facts.get("task", ""))
        self.label: str | None = None
        self.asked = 0
        self._print_lock = threading.Lock()

    def _first_sentence(self) -> str:
        from ..core.teaching.workspace import model_examples

        if self.args.sentence:
            return str(self.args.sentence)
        examples = model_examples(self.model)
        if not examples:
            raise InputError("this model's task has no examples: give a SENTENCE")
        return examples[0].source

    def _check_view(self) -> None:
        config = self.model.config
        layers = config.n_encoder_layers if self.args.kind == "encoder" else config.n_decoder_layers
        if not -layers <= self.args.layer < layers:
            raise InputError("there is no layer {0}: the {1} attention has layers 0 to {2}", self.args.layer,
                             self.args.kind, layers - 1)
        if self.head is not None and not 0 <= self.head < config.n_heads:
            raise InputError("there is no head {0}: this model has heads 0 to {1}", self.head, config.n_heads - 1)

    def say(self, text: str) -> None:
        """Print from either thread (the server's reports its students)."""
        with self._print_lock:
            print(text, flush=True)

    def on_event(self, event: Event) -> None:
        from ..live.events import Answered, Joined, Left, Rejoined, Removed

        if isinstance(event, Joined):
            self.say(f"+ {event.nickname} joined ({event.students} in the class)")
        elif isinstance(event, Rejoined):
            self.say(f"+ {event.nickname} is back")
        elif isinstance(event, Left):
            self.say(f"- {event.nickname} left ({event.connected} connected)")
        elif isinstance(event, Removed):
            self.say(f"- {event.nickname} removed ({event.students} in the class)")
        elif isinstance(event, Answered):
            tally = event.tally
            self.say(f"  {tally.answered} of {tally.students} answered {tally.question}")

    def show(self, server: ClassServer) -> None:
        from ..live.views import session_view

        server.show(session_view(self.session, self.args.kind, self.args.layer, self.head, self.name))

    def command(self, server: ClassServer, line: str) -> str | None:
        """Do one command; what to print (None: stop the class)."""
        from ..core.decoding.session import DecodingSession
        from ..live.views import next_token_question

        word, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if word in ("q", "quit"):
            return None
        if word in ("", "n"):
            record = self.session.step()
            self.show(server)
            return f"step {record.index + 1}: {record.token}  ({' '.join(self.session.output_tokens)})"
        if word == "b":
            self.session.back()
            self.show(server)
            return f"back to step {self.session.position}: {' '.join(self.session.output_tokens) or '(nothing yet)'}"
        if word == "s":
            if not rest:
                raise InputError("s needs a sentence: s ich mochte ein bier")
            self.session = DecodingSession(self.model, rest, top_k=self.args.candidates, max_len=self.args.max_len)
            self.show(server)
            return f"source: {' '.join(self.session.source_tokens)}"
        if word == "ask":
            self.asked += 1
            question = next_token_question(self.session, f"q{self.asked}", self.label, seed=self.asked)
            server.ask(question)
            choices = "  ".join(f"{i + 1}) {c}{' *' if i == question.answer else ''}"
                                for i, c in enumerate(question.choices))
            return f"asked {question.id}{f' ({self.label}-test)' if self.label else ''}: {choices}   (* the answer)"
        if word == "test":
            if rest not in ("pre", "post", "off"):
                raise InputError("test takes pre, post or off, not {0}", repr(rest))
            self.label = None if rest == "off" else rest
            return f"questions from now on: {f'{rest}-test' if self.label else 'no test label'}"
        if word == "close":
            tally = server.close_question()
            return _tally_line(tally) if tally.question else "no question asked yet"
        if word == "reveal":
            tally = server.tally()
            results = server.reveal()
            if tally.question is None:
                return "no question asked yet"
            return f"{_tally_line(tally)}; {sum(r.right for r in results)} of {len(results)} right"
        if word == "who":
            students = server.room.students()
            return "\n".join(f"  {s.nickname}{'' if s.connected else ' (away)'}{' (removed)' if s.removed else ''}"
                             f"  {s.answered} answered" for s in students) or "  nobody yet"
        if word == "kick":
            server.remove(rest)
            return f"removed {rest}"
        if word == "export":
            if not rest:
                raise InputError("export needs a file name: export answers.csv")
            from ..core.io.outputs import TEXT, check_output

            check_output(rest, TEXT, inputs=[self.model.path])
            server.export_csv(rest)
            return f"wrote {rest}"
        if word == "summary":
            return "\n".join(_summary_line(s) for s in server.summary()) or "  no question asked yet"
        if word == "help":
            return HELP
        return f"! unknown command {word!r}; type help"


def _number(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError("{0} takes a number or 'mean', not {1}", flag, repr(text)) from None


def _tally_line(tally: Tally) -> str:
    counts = " ".join(f"{i + 1}:{n}" for i, n in enumerate(tally.counts))
    return f"{tally.question}: {tally.answered} of {tally.students} answered ({counts})"


def _summary_line(summary: QuestionSummary) -> str:
    share = "-" if summary.right_share is None else f"{summary.right_share:.0%}"
    label = f" {summary.label}-test" if summary.label else ""
    return f"  {summary.question}{label}: {summary.right} of {summary.answered} right ({share}), " \
           f"{summary.students} in the class"


def run(args: argparse.Namespace) -> int:
    from ..live.qr import qr_text
    from ..live.server import ClassServer
    from ..textplot import can_show

    host = _Host(args)
    server = ClassServer(args.host, args.port, args.code, on_event=host.on_event)
    server.start()
    try:
        host.show(server)
        host.say(f"join at {server.url} with the code {server.code}")
        host.say(f"or open {server.join_url}")
        host.say(f"(students' devices reach this computer on TCP port {server.port}: let it through the firewall)")
        if not args.no_qr:
            drawn = qr_text(server.join_url)
            host.say(drawn if can_show(drawn, getattr(sys.stdout, "encoding", None))
                     else "(this terminal cannot draw the QR code's blocks)")
        host.say(f"source: {' '.join(host.session.source_tokens)}")
        host.say(HELP)
        for line in sys.stdin:  # one command a line, until q or the end of input
            try:
                reply = host.command(server, line)
            except TransvizError as exc:
                reply = f"! {exc}"
            if reply is None:
                break
            host.say(reply)
        summary = server.summary()
        if summary:
            host.say("summary:\n" + "\n".join(_summary_line(s) for s in summary))
    finally:
        server.stop()
    host.say("the class has ended")
    return 0
