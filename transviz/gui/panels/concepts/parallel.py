"""Trains in parallel, decodes one token at a time: the measured time of the decoder's one
teacher-forced pass over T tokens, of T cached decoding steps, and of a GRU of the same width
(:func:`transviz.core.analysis.concepts.parallel.time_parallel`)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....core.analysis.concepts.parallel import ParallelTimes, time_parallel
from ....core.model.bundle import Model
from ...style import BLUE, GREEN, VERMILLION
from ...widgets.plots import curve_plot, legend_below
from .base import ConceptContext, ConceptView


class ParallelView(ConceptView):
    """Three measured curves against T. Timing takes about half a second, so it runs once per
    model and source sentence, not at every step of the explorer."""

    name = "parallel"
    uses_layer = uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.times_plot = curve_plot()
        self.legend = legend_below(self.times_plot.getPlotItem(), columns=3)
        self.timed: tuple[Model, str, ParallelTimes] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.times_plot)

    def title(self) -> str:
        return self.tr("Training vs. decoding time")

    def claim(self) -> str:
        return self.tr("The decoder trains in parallel but does not infer in parallel: in training, with teacher "
                       "forcing, the decoder needs no output of the previous time step and can be parallelised; "
                       "but at test time we have no correct target sentence, the input at time t must depend on the "
                       "output at time t-1, and then it is no different from the earlier seq2seq.")

    def caption(self) -> str:
        return self.tr("Measured on this computer's CPU (one thread, median of 3): the decoder reading T tokens in "
                       "one teacher-forced pass, the same decoder generating them in T steps with its key/value "
                       "cache (the same logits), and a GRU of the same width and layers over T inputs.")

    def plots(self) -> list[QWidget]:
        return [self.times_plot]

    def times(self, context: ConceptContext) -> ParallelTimes:
        """The timings for this model and source, measured at the first draw that needs them."""
        model, source = context.model, context.sentence.source
        if self.timed is None or self.timed[0] is not model or self.timed[1] != source:
            self.timed = (model, source, time_parallel(model, context.sentence))
        return self.timed[2]

    def draw(self, context: ConceptContext) -> None:
        times = self.times(context)
        plot = self.times_plot
        plot.clear()
        self.legend.clear()
        lengths = list(times.lengths)
        series = ((times.teacher_forced, BLUE, self.tr("one teacher-forced pass (training)")),
                  (times.cached_steps, VERMILLION, self.tr("T cached steps (generating)")),
                  (times.gru, GREEN, self.tr("GRU over T steps")))
        for seconds, colour, name in series:
            curve = plot.plot(lengths, [1000 * s for s in seconds], pen=pg.mkPen(colour, width=2), symbol="o",
                              symbolSize=7, symbolBrush=colour, symbolPen=None)
            self.legend.addItem(curve, name)
        plot.getAxis("bottom").setTicks([[(length, str(length)) for length in lengths]])
        plot.setLabel("bottom", self.tr("decoder tokens T"))
        plot.setLabel("left", self.tr("milliseconds"))
        ratio = times.cached_steps[-1] / max(times.teacher_forced[-1], 1e-9)
        plot.setTitle(self.tr("At T = {0}: generating takes {1:.0f} times as long as the teacher-forced pass").format(
            lengths[-1], ratio))
