"""Where the FLOPs and the time go: one forward pass of the explorer's sentence split into its
components, each with its share of the FLOPs (:mod:`transviz.core.analysis.concepts.cost`) beside its share
of the measured time (:mod:`transviz.core.analysis.concepts.component_time`); the FFN's share as the model
widens, and the share of the n x m x l attention products as sentences grow.

The sizes (d_model, d_ff, layers, heads, lengths) are the user's, in spin boxes that follow the
loaded model and sentence until the user changes one. Timing a pass takes longer than a step may
(15 passes): it runs on the view's worker thread, once per model and sentence length (or per sizes,
on a freshly built network of them), while the bars show the last lengths measured until done."""
from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from ....core.analysis.concepts.component_time import PARTS, REPEATS, ComponentTimes, component_times
from ....core.analysis.concepts.cost import PRODUCTS, PROJECTIONS, flops, flops_by_length, flops_by_width, share
from ....core.analysis.concepts.forward import Inputs, model_inputs
from ....core.analysis.concepts.sized import MAX_LENGTH, Sizes, check_timeable, sized_times
from ....core.base.errors import ConfigError
from ....core.model.bundle import Model
from ....core.model.config import MAX_SIZES, ModelConfig
from ...services.core_messages import translated
from ...style import BLUE, GREEN, GREY, ORANGE, PURPLE, SKY, VERMILLION
from ...widgets.plots import curve_plot, legend_below, name_legend
from .background import Background, Reporter, counting, model_key
from .base import ConceptContext, ConceptView, joined

WIDTHS = list(range(128, 1025, 128))  # d_model of the width curve, d_ff = 4 d_model
LENGTHS = [8, 16, 32, 64, 128, 256, 512]  # source and target length of the length curve
STACKED = {"qkv": BLUE, "scores": VERMILLION, "weights_v": PURPLE, "out_proj": SKY, "ffn": ORANGE,
           "output": GREEN}  # the components that count FLOPs, bottom to top in the width bars
LINEAR = ("qkv", "out_proj", "ffn", "output")  # linear in the sentence's length
# the spin boxes: Sizes field -> highest value (lowest 1)
RANGES = {"d_model": MAX_SIZES["d_model"], "d_ff": MAX_SIZES["d_ff"], "n_encoder_layers": 48,
          "n_decoder_layers": 48, "n_heads": MAX_SIZES["n_heads"], "source_len": MAX_LENGTH,
          "target_len": MAX_LENGTH}
MEASURE_AFTER_MS = 400  # timing starts once the explorer rests at a length, not on every step


class CostView(ConceptView):
    """FLOPs per component of the loaded model on the explorer's sentence, and two curves."""

    name = "cost"
    uses_layer = uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bars, self.by_width, self.by_length = curve_plot(), curve_plot(), curve_plot()
        self.by_width.setYRange(0, 1, padding=0.02)
        self.width_legend = legend_below(self.by_width.getPlotItem(), columns=3)
        self.bars_legend = legend_below(self.bars.getPlotItem())
        self.counts: dict[str, int] = {}
        self.lengths = (0, 0)  # source and decoder tokens of the pass drawn
        self.times: ComponentTimes | None = None  # the measured pass drawn beside the FLOPs
        self.background: Background[ComponentTimes] = Background(self._on_measured, delay_ms=MEASURE_AFTER_MS)
        self._key: Hashable = None  # the model and lengths whose time the view waits for
        self._weights: tuple[int, ...] | None = None  # model_key of the model drawn
        self.context: ConceptContext | None = None
        self.refused = False  # the user's sizes are too large to time
        self.custom = False  # the user changed a size: the spin boxes stop following the model
        self.config: ModelConfig | None = None  # the config of the sizes drawn
        self._add_items()
        controls = self._add_controls()
        below = QHBoxLayout()
        below.addWidget(self.by_width)
        below.addWidget(self.by_length)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        layout.addWidget(self.background.bar)
        layout.addWidget(self.bars, 1)
        layout.addLayout(below, 1)

    def _add_items(self) -> None:
        """The plots' items, made once: a step only changes their data (a redraw from scratch of
        bars, labels and curves costs a step more than its 50 ms)."""
        x = np.arange(len(PARTS))
        zeros = np.zeros(len(PARTS))
        self.flop_bars = pg.BarGraphItem(x=x - 0.2, height=zeros, width=0.38, brush=BLUE, pen=None)
        self.time_bars = pg.BarGraphItem(x=x + 0.2, height=zeros, width=0.38, brush=ORANGE, pen=None)
        self.time_labels = [pg.TextItem("", color=GREY, anchor=(0.5, 1.0)) for _ in PARTS]
        for item in (self.flop_bars, self.time_bars, *self.time_labels):
            self.bars.addItem(item)
        self.bars.setXRange(-0.6, len(PARTS) - 0.1, padding=0)  # room for the last name under its bars

        def curve(plot: pg.PlotWidget, colour: str) -> pg.PlotDataItem:
            return plot.plot([], [], pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6, symbolBrush=colour,
                             symbolPen=None)
        self.width_bars = {part: pg.BarGraphItem(x=[0], y0=[0], height=[0], width=0.7, brush=colour, pen=None)
                           for part, colour in STACKED.items()}  # one stacked bar per width
        for item in self.width_bars.values():
            self.by_width.addItem(item)
        self.own_width = pg.InfiniteLine(0, angle=90, pen=pg.mkPen(GREY, style=Qt.PenStyle.DashLine))
        self.by_width.addItem(self.own_width)
        self.products_curve = curve(self.by_length, VERMILLION)
        self.linear_curve = curve(self.by_length, BLUE)
        self.by_length.setLogMode(x=False, y=True)  # n x m x l against the linear terms: slope 2 against 1
        self.own_length = pg.InfiniteLine(0, angle=90, pen=pg.mkPen(GREY, style=Qt.PenStyle.DashLine))
        self.by_length.addItem(self.own_length)
        self.length_legend = legend_below(self.by_length.getPlotItem(), columns=1)
        positions = np.log2(LENGTHS)
        self.by_length.getAxis("bottom").setTicks([[(x, str(n)) for x, n in zip(positions, LENGTHS, strict=True)]])

    def _add_controls(self) -> QHBoxLayout:
        """One spin box per size, the reset button, and a line for what is wrong with the sizes."""
        row = QHBoxLayout()
        self.spins: dict[str, QSpinBox] = {}
        self.spin_labels: dict[str, QLabel] = {}
        for field, high in RANGES.items():
            spin = QSpinBox()
            spin.setRange(1, high)
            spin.setKeyboardTracking(False)  # typing 512 does not redraw at 5 and 51
            spin.valueChanged.connect(self._on_size_changed)
            label = QLabel()
            label.setBuddy(spin)
            row.addWidget(label)
            row.addWidget(spin)
            self.spins[field], self.spin_labels[field] = spin, label
        self.reset = QPushButton()
        self.reset.clicked.connect(self._on_reset)
        row.addWidget(self.reset)
        row.addStretch(1)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {VERMILLION}")
        self._name_controls()
        return row

    def _name_controls(self) -> None:
        names = {"d_model": "d_model", "d_ff": "d_ff", "n_encoder_layers": self.tr("enc. layers"),
                 "n_decoder_layers": self.tr("dec. layers"), "n_heads": self.tr("heads"),
                 "source_len": self.tr("source len."), "target_len": self.tr("target len.")}
        for field, name in names.items():
            self.spin_labels[field].setText(name)
        self.reset.setText(self.tr("Reset to the loaded model"))

    def sizes(self) -> Sizes:
        """The sizes the spin boxes show."""
        return Sizes(**{field: spin.value() for field, spin in self.spins.items()})

    def set_sizes(self, sizes: Sizes) -> None:
        """Show ``sizes`` in the spin boxes without counting it as the user's change."""
        for field, spin in self.spins.items():
            spin.blockSignals(True)
            spin.setValue(getattr(sizes, field))
            spin.blockSignals(False)

    def _on_size_changed(self) -> None:
        self.custom = True
        if self.context is not None:
            self.draw(self.context)

    def _on_reset(self) -> None:
        self.custom = False
        if self.context is not None:
            self.draw(self.context)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._name_controls()
        super().changeEvent(event)

    def title(self) -> str:
        return self.tr("Where the FLOPs and the time go")

    def claim(self) -> str:
        return self.tr("Once the model is large, what really consumes the compute (FLOPS) is still the MLP (FFN); "
                       "self-attention (attn) and multi-head attention (MHA) take only a small part. The time "
                       "complexity of MHA is n x m x l.")

    def caption(self) -> str:
        described = self.tr(
            "One teacher-forced pass of this sentence. Blue: its FLOPs (a product of (m, k) and (k, n) matrices counts "
            "2mkn, as torch counts; lookups, softmax and LayerNorm etc., with the residual additions and masks, count "
            "0). Orange: its measured time, each piece run by itself (median of {0} runs, one thread). At this tiny "
            "size time is not where the FLOPs are: every piece pays a fixed overhead of Python and dispatch. Below: "
            "the FFN's share as the model widens; the n x m x l products grow with the sentence's length.").format(
            self.times.repeats if self.times else REPEATS)
        if not self.counts:
            return described
        # the tutorial's "small part" holds for attention's n x m x l products, not for its projections
        small = self.tr("Of attention only the n x m x l products (QK^T and weights x V) are small: {0:.1%} of these "
                        "FLOPs; its Q, K, V and output projections take {1:.1%}, the FFN {2:.1%}.").format(
            share(self.counts, PRODUCTS), share(self.counts, PROJECTIONS), share(self.counts, ["ffn"]))
        return joined(small, described)

    def plots(self) -> list[QWidget]:
        return [self.bars, self.by_width, self.by_length]

    def component_names(self) -> dict[str, str]:
        return {"embeddings": self.tr("embedding"), "qkv": self.tr("Q, K, V"), "scores": self.tr("QK^T"),
                "softmax": self.tr("softmax"), "weights_v": self.tr("weights x V"), "out_proj": self.tr("out proj."),
                "ffn": self.tr("FFN"), "output": self.tr("output layer"),
                "other": self.tr("LayerNorm etc.")}

    def set_synchronous(self, synchronous: bool) -> None:
        self.background.synchronous = synchronous

    def shutdown(self) -> None:
        self.background.shutdown()

    def draw(self, context: ConceptContext) -> None:
        self.context = context
        inputs = model_inputs(context.model, context.sentence)
        loaded = Sizes.of(context.model.config, len(inputs.source_tokens), len(inputs.target_tokens))
        if not self.custom:
            self.set_sizes(loaded)
        sizes = self.sizes()
        try:
            config = sizes.config(context.model.config)
        except ConfigError as exc:  # e.g. d_model not divisible by the heads: say so, keep the last picture
            self.message.setText(translated(exc))
            self.message.setVisible(True)
            return
        self.message.setVisible(False)
        self.config = config
        source_len, target_len = sizes.source_len, sizes.target_len
        self.counts, self.lengths = flops(config, source_len, target_len), (source_len, target_len)
        self.caption_changed.emit()  # its shares are these sizes'
        self.refused = False
        if sizes == loaded:
            self._measure(context.model, inputs)
        else:
            self._measure_sized(config)
        self._draw_bars()
        widths = sorted(set(WIDTHS) | {config.d_model})
        self._draw_widths(widths, config.d_model, flops_by_width(config, widths, source_len, target_len))
        self._draw_lengths(flops_by_length(config, LENGTHS))

    def _measure(self, model: Model, inputs: Inputs) -> None:
        """The time of this pass: kept, measured now (headless), or asked of the worker."""
        weights = model_key(model)
        if weights != self._weights:
            self.times, self._weights = None, weights  # another model's times
        self._key = (weights, *self.lengths)
        if self.background.request(self._key, self._task(self.background.model_copy(model), inputs)):
            self.times = self.background.results[self._key]

    def _measure_sized(self, config: ModelConfig) -> None:
        """The time of a pass through a fresh network of the user's sizes, kept per sizes."""
        self._weights = None  # the loaded model's times are another model's now
        self._key = ("sized", config, *self.lengths)
        source_len, target_len = self.lengths
        template = self.tr("Timing a fresh model of these sizes: pass {0} of {1}")

        def task(state: Reporter) -> ComponentTimes | None:
            progress = counting(state, template)
            return sized_times(config, source_len, target_len, cancelled=state.is_cancelled, progress=progress)
        self.times, self.refused = None, False
        try:
            check_timeable(config, source_len, target_len)
        except ConfigError as exc:  # too large to time in a few seconds: FLOPs only, and say why
            self.refused = True
            self.background.cancel()
            self.message.setText(self.tr("Not timed: {0}").format(translated(exc)))
            self.message.setVisible(True)
            return
        if self.background.request(self._key, task):
            self.times = self.background.results[self._key]

    def _task(self, model: Model, inputs: Inputs) -> Callable[[Reporter], ComponentTimes | None]:
        template = self.tr("Timing the components: pass {0} of {1}")

        def task(state: Reporter) -> ComponentTimes | None:
            progress = counting(state, template)
            return component_times(model, inputs, cancelled=state.is_cancelled, progress=progress)
        return task

    def _on_measured(self, key: Hashable, times: ComponentTimes) -> None:
        if key == self._key:
            self.times = times
            self._draw_bars()

    def _draw_bars(self) -> None:
        plot, counts, times = self.bars, self.counts, self.times
        total = sum(counts.values())
        flop_shares = np.array([100 * counts.get(part, 0) / total for part in PARTS])
        time_shares = np.array([100 * times.share(part) if times else 0.0 for part in PARTS])
        self.flop_bars.setOpts(height=flop_shares)
        self.time_bars.setOpts(height=time_shares)
        for i, (label, height) in enumerate(zip(self.time_labels, time_shares, strict=True)):
            label.setText(f"{height:.0f}%")  # the time's share above its bar
            label.setPos(i + 0.2, height)
            label.setVisible(times is not None)
        name_legend(self.bars_legend, [(self.flop_bars, self.tr("share of FLOPs")),
                                             (self.time_bars, self.tr("share of measured time"))])
        names = self.component_names()
        plot.getAxis("bottom").setTicks([[(i, names[part]) for i, part in enumerate(PARTS)]])
        plot.setYRange(0, max(float(flop_shares.max()), float(time_shares.max())) * 1.12, padding=0)
        plot.setLabel("left", self.tr("share of the pass (%)"))
        plot.setTitle(self._bars_title(total))

    def _bars_title(self, total: int) -> str:
        counts, times = self.counts, self.times
        flops_part = self.tr("One pass, {0} source and {1} decoder tokens: {2:.2f} MFLOPs, FFN {3:.0%}").format(
            *self.lengths, total / 1e6, counts["ffn"] / total)
        if self.refused:
            return self.tr("{0}; too large to time here").format(flops_part)
        if times is None:
            return self.tr("{0}; measuring its time...").format(flops_part)
        measured = self.tr("{0}; {1:.2f} ms, FFN {2:.0%} of the time").format(
            flops_part, 1000 * times.total, times.share("ffn"))
        if (times.source_len, times.target_len) == self.lengths:
            return measured
        return self.tr("{0} (time of {1} and {2} tokens; measuring this length...)").format(
            measured, times.source_len, times.target_len)

    def _draw_widths(self, widths: list[int], own_width: int, by_width: list[dict[str, int]]) -> None:
        """A bar per width, stacked: each component's share of the FLOPs (%), the FFN's growing."""
        plot, bottom = self.by_width, np.zeros(len(widths))
        x = np.arange(len(widths))
        totals = np.array([sum(counts.values()) for counts in by_width], dtype=float)
        for part, item in self.width_bars.items():
            height = np.array([100 * counts[part] for counts in by_width]) / totals
            item.setOpts(x=x, y0=bottom.copy(), height=height)
            bottom += height
        self.own_width.setValue(widths.index(own_width))
        names = self.component_names()
        name_legend(self.width_legend, [(item, names[part]) for part, item in self.width_bars.items()])
        plot.getAxis("bottom").setTicks([[(i, str(width)) for i, width in enumerate(widths)]])
        plot.setXRange(-0.5, len(widths) - 0.5, padding=0)
        plot.setYRange(0, 100, padding=0.02)
        plot.setLabel("bottom", self.tr("d_model (d_ff = 4 d_model)"))
        plot.setLabel("left", self.tr("share of FLOPs (%)"))
        plot.setTitle(self.tr("As the model widens (dashed: these sizes)"))

    def _draw_lengths(self, by_length: list[dict[str, int]]) -> None:
        """The n x m x l products (quadratic in the length) and the linear rest, in FLOPs."""
        plot = self.by_length
        positions = np.log2(LENGTHS)  # doubling lengths, evenly spaced
        products = [sum(counts[part] for part in PRODUCTS) for counts in by_length]
        linear = [sum(counts[part] for part in LINEAR) for counts in by_length]
        self.products_curve.setData(positions, products)
        self.linear_curve.setData(positions, linear)
        own = float(np.log2(max(self.lengths)))
        self.own_length.setValue(own)
        plot.setXRange(min(own, positions[0]) - 0.3, max(own, positions[-1]) + 0.3, padding=0)
        name_legend(self.length_legend, [(self.products_curve, self.tr("scores + weights x V (n x m x l)")),
                                         (self.linear_curve, self.tr("projections, FFN, output (linear)"))])
        plot.setLabel("bottom", self.tr("tokens in each sentence (n = m)"))
        plot.setLabel("left", self.tr("FLOPs of one pass"))
        plot.setTitle(self.tr("As sentences grow (these sizes; dashed: this length)"))
