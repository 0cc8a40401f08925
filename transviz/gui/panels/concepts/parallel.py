"""Trains in parallel, decodes one token at a time: the measured time of the decoder's one
teacher-forced pass over T tokens, of T cached decoding steps, and of a GRU of the same width
(:func:`transviz.core.analysis.concepts.parallel.time_parallel`), beside the longest chain of
layers each must run one after another (:func:`transviz.core.analysis.concepts.parallel.chains`)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ....core.analysis.concepts.parallel import REPEATS, Chains, ParallelTimes, chains, time_parallel
from ....core.model.bundle import Model
from ...style import BLUE, GREEN, VERMILLION
from ...widgets.plots import curve_plot, legend_below
from .base import ConceptContext, ConceptView, joined


class ParallelView(ConceptView):
    """Three measured curves against T, and the three chains of dependent layers. Timing takes
    about half a second, so it runs once per model and source sentence, not at every step of the
    explorer."""

    name = "parallel"
    uses_layer = uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.times_plot, self.chains_plot = curve_plot(), curve_plot()
        self.legend = legend_below(self.times_plot.getPlotItem(), columns=1)
        self.chains_legend = legend_below(self.chains_plot.getPlotItem(), columns=1)
        self.timed: tuple[Model, str, ParallelTimes] | None = None
        self.chains: Chains | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.times_plot)
        layout.addWidget(self.chains_plot)

    def title(self) -> str:
        return self.tr("Training vs. decoding time")

    def claim(self) -> str:
        return self.tr("The decoder trains in parallel but does not infer in parallel: in training, with teacher "
                       "forcing, the decoder needs no output of the previous time step and can be parallelised; "
                       "but at test time we have no correct target sentence, the input at time t must depend on the "
                       "output at time t-1, and then it is no different from the earlier seq2seq.")

    def caption(self) -> str:
        described = self.tr("Left, measured on this computer's CPU on one thread (median of {0}): the decoder reading "
                            "T tokens in one teacher-forced pass, the same decoder generating them in T steps with its "
                            "key/value cache (the same logits), a GRU of the same width and layers over T inputs. "
                            "Right: the layers each must run one after another, which no number of processors can "
                            "shorten.").format(self.timed[2].repeats if self.timed else REPEATS)
        if self.timed is None or self.chains is None:
            return described
        times, chain = self.timed[2], self.chains
        # on one thread nothing runs at once: the measured gap is the cost of T calls, not parallel work
        measured = self.tr("On one thread nothing runs at the same time: at T = {0} the steps took {1:.1f} times as "
                           "long as the pass because they make T calls through the layers where it makes one, and the "
                           "GRU, looping inside one call, took {2:.1f} times as long. The pass's advantage is "
                           "independence: its chain is {3} layers at any T; generating must wait through {4}, the "
                           "GRU, in training too, through {5}.").format(
            times.lengths[-1], times.cached_steps[-1] / times.teacher_forced[-1],
            times.gru[-1] / times.teacher_forced[-1], chain.teacher_forced[-1], chain.generating[-1], chain.gru[-1])
        return joined(described, measured)

    def plots(self) -> list[QWidget]:
        return [self.times_plot, self.chains_plot]

    def times(self, context: ConceptContext) -> ParallelTimes:
        """The timings for this model and source, measured at the first draw that needs them."""
        model, source = context.model, context.sentence.source
        if self.timed is None or self.timed[0] is not model or self.timed[1] != source:
            self.timed = (model, source, time_parallel(model, context.sentence))
        return self.timed[2]

    def draw(self, context: ConceptContext) -> None:
        times = self.times(context)
        lengths = list(times.lengths)
        self.chains = chains(context.model.config.n_decoder_layers, lengths)
        names = (self.tr("one teacher-forced pass (training)"), self.tr("T cached steps (generating)"),
                 self.tr("GRU over T steps"))
        self._draw(self.times_plot, self.legend, lengths,
                   [[1000 * s for s in seconds] for seconds in (times.teacher_forced, times.cached_steps, times.gru)],
                   names)
        self.times_plot.setLabel("left", self.tr("milliseconds"))
        ratio = times.cached_steps[-1] / max(times.teacher_forced[-1], 1e-9)
        self.times_plot.setTitle(self.tr("At T = {0}, on one thread, generating takes {1:.1f} times the pass").format(
            lengths[-1], ratio))
        chain = self.chains
        self._draw(self.chains_plot, self.chains_legend, lengths,
                   [list(chain.teacher_forced), list(chain.generating), list(chain.gru)], names)
        self.chains_plot.setLabel("left", self.tr("layers, one after another"))
        self.chains_plot.setTitle(self.tr("Longest chain of dependent layers ({0} per pass)").format(chain.layers))
        self.caption_changed.emit()

    def _draw(self, plot: pg.PlotWidget, legend: pg.LegendItem, lengths: list[int], series: list[list[float]],
              names: tuple[str, str, str]) -> None:
        plot.clear()
        legend.clear()
        for values, colour, name in zip(series, (BLUE, VERMILLION, GREEN), names, strict=True):
            curve = plot.plot(lengths, values, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=7,
                              symbolBrush=colour, symbolPen=None)
            legend.addItem(curve, name)
        plot.getAxis("bottom").setTicks([[(length, str(length)) for length in lengths]])
        plot.setLabel("bottom", self.tr("decoder tokens T"))
