"""What every concept view is: a page of the Concepts tab that draws one picture the tutorials
describe, for the explorer's sentence at its step and the head chosen above it.

A view says what it shows in three texts: its ``title`` (the list of views), the tutorial's
``claim`` (in Chinese the seed's own words, in English a faithful rendering) and a ``caption``
(what the picture shows). A caption that quotes a number of the model or of a measurement is read
again after each draw; a view that changes it later emits ``caption_changed``. It draws with
:meth:`ConceptView.draw` and names the plots File > Export and ``transviz render --view NAME``
write with :meth:`ConceptView.plots`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import ClassVar

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QWidget

from ....core.analysis.concepts.forward import Sentence
from ....core.analysis.walkthrough import Kind
from ....core.decoding.interventions import Intervention
from ....core.model.bundle import Model
from ...services.language import Retranslated


def hidden_message() -> str:
    """What a view shows instead of a picture that would give a quiz's answer away."""
    return QCoreApplication.translate(
        "ConceptView", "Hidden until you answer: a quiz's question is open in the Explorer. Reveal the answer "
                       "there (Enter) to see this picture of the current step.")


def joined(*sentences: str) -> str:
    """Translated sentences one after another (a space between them in English, none in Chinese)."""
    pair = QCoreApplication.translate("ConceptView", "{0} {1}")
    return reduce(pair.format, sentences)


@dataclass(frozen=True)
class ConceptContext:
    """What the views show: ``model`` (the explorer's own copy; run it on the GUI thread only),
    the explorer's ``sentence`` at its step, and the attention ``kind``, ``layer`` and ``head``
    chosen in the tab (layers of the encoder for ``encoder_self``, of the decoder otherwise), the
    ``interventions`` the explorer decodes with, and ``outputs``: the tokens the explorer has chosen
    so far (its newest one too, which ``sentence.target``, the decoder's inputs, does not hold yet).
    With ``hidden`` a quiz's question is open: the newest output and the decoder's last query row,
    which chose it, are the answer; a view hides them or says that they are hidden."""

    model: Model
    sentence: Sentence
    kind: Kind
    layer: int
    head: int
    interventions: tuple[Intervention, ...] = ()
    outputs: tuple[str, ...] = ()
    hidden: bool = False

    @property
    def hidden_query(self) -> int | None:
        """The query row a quiz hides in maps of ``kind`` (the decoder's last), or None."""
        if not self.hidden or self.kind == "encoder_self":
            return None
        return len(self.sentence.target)  # the decoder's rows: the start token, then sentence.target

    @property
    def side(self) -> str:
        """The stack of ``layer``: "encoder" or "decoder"."""
        return "encoder" if self.kind == "encoder_self" else "decoder"


class ConceptView(Retranslated, QWidget):
    """A page of the Concepts tab. Subclasses set ``name`` (the ``--view`` of ``transviz render``)
    ``uses_layer`` and ``uses_head``, and implement the methods below. A view that changes how the
    model runs emits ``requested`` with one intervention; the tab adds it to the workspace's."""

    requested = Signal(object)  # an Intervention (transviz.core.decoding.interventions) to run the explorer with
    caption_changed = Signal()  # the caption's numbers changed outside a draw the tab asked for

    name: ClassVar[str]
    uses_layer: ClassVar[bool] = True  # False: the tab hides its kind, layer and head choosers
    uses_head: ClassVar[bool] = True
    uses_kind: ClassVar[bool] = False  # with uses_layer False: the tab still shows the kind chooser
    from_tutorial: ClassVar[bool] = True  # False: the claim is today's practice, not the tutorials' words

    def title(self) -> str:
        raise NotImplementedError

    def claim(self) -> str:
        raise NotImplementedError

    def caption(self) -> str:
        raise NotImplementedError

    def draw(self, context: ConceptContext) -> None:
        """Show ``context``; a TransvizError it raises is shown by the tab in plain words."""
        raise NotImplementedError

    def plots(self) -> list[QWidget]:
        """The plots File > Export may write (the tab exports the one last pointed at)."""
        raise NotImplementedError

    def set_synchronous(self, synchronous: bool) -> None:
        """A view that computes off the GUI thread (:mod:`.background`) computes at once while
        ``synchronous`` (``transviz render`` must draw the finished picture); others ignore it."""

    def shutdown(self) -> None:
        """Stop the view's worker thread, if it has one (safe to call twice)."""
