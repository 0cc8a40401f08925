"""Why positions: shuffle the source words and compare the encoder's self-attention, with the
positional encoding and without it (NoPositions). Without positions the shuffled map is the
original one with its rows and columns reordered; with them it is not. The maps and differences
come from :func:`transviz.core.analysis.why_positions.positions_demo`."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QPushButton, QSpinBox, QStackedWidget, QVBoxLayout, QWidget

from ...core.analysis.why_positions import PositionsDemo, positions_demo
from ...core.base.errors import TransvizError
from ...core.model.bundle import Model
from ..services.core_messages import translated
from ..services.language import Retranslated
from ..widgets.heatmap import HeatmapWidget
from ..widgets.labels import bound_label, error_label, plain_label, show_error, token_line


class PositionsSection(Retranslated, QWidget):
    """The "why positions" page: four maps (original and shuffled, with and without positions) of
    one layer and head, the permutation in words, and the largest difference of each pair."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model: Model | None = None
        self.sentence = ""
        self.demo: PositionsDemo | None = None
        self._shuffles = 0  # each press draws the next permutation: seeds 1, 2, 3 ...
        self._build()

    def retranslate(self) -> None:
        super().retranslate()
        self._draw()

    def _build(self) -> None:
        self.layer, self.head = QSpinBox(), QSpinBox()
        self.shuffle_button = QPushButton()
        self.error = error_label()
        controls = QHBoxLayout()
        controls.addWidget(self.shuffle_button)
        for text, spin in ((lambda: self.tr("layer"), self.layer), (lambda: self.tr("head"), self.head)):
            controls.addWidget(bound_label(self, text))
            controls.addWidget(spin)
        controls.addStretch(1)
        self.order = plain_label()  # two lines: the original and the shuffled order
        self.order.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.views = [HeatmapWidget(value_format="{:.3f}") for _ in range(4)]  # original, shuffled; then without
        self.with_result, self.without_result = plain_label(wrap=True), plain_label(wrap=True)
        maps = QGridLayout()
        for i, view in enumerate(self.views):
            maps.addWidget(view, i // 2, i % 2)
        maps.addWidget(self.with_result, 0, 2)
        maps.addWidget(self.without_result, 1, 2)
        for column, stretch in enumerate((2, 2, 1)):
            maps.setColumnStretch(column, stretch)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.error)
        layout.addWidget(self.order)
        layout.addLayout(maps, 1)
        self.no_model = bound_label(self, lambda: self.tr(
            "No model loaded: Model > Open a checkpoint, then shuffle its source words here."), wrap=True)
        self.no_model.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.no_model)
        self.pages.addWidget(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)
        self.shuffle_button.clicked.connect(self.shuffle)
        for spin in (self.layer, self.head):
            spin.valueChanged.connect(self._draw)

    def plots(self) -> list[QWidget]:
        return list(self.views)

    def set_model(self, model: Model | None, sentence: str) -> None:
        """Show ``model`` and ``sentence`` unshuffled (drawn at the next :meth:`refresh`)."""
        self.model, self.sentence, self.demo, self._shuffles = model, sentence, None, 0
        self.pages.setCurrentIndex(0 if model is None else 1)
        self.bind_button()
        if model is not None:
            self.layer.setMaximum(model.config.n_encoder_layers - 1)
            self.head.setMaximum(model.config.n_heads - 1)

    def refresh(self) -> None:
        """Run the encoder on the sentence as it is (the first shuffle's permutation waits for the button)."""
        if self.model is None:
            return
        if self.demo is None:
            self._compute(None)

    def shuffle(self) -> None:
        """Draw a new permutation of the source words and compare."""
        self._shuffles += 1
        self._compute(self._shuffles)

    def _compute(self, seed: int | None) -> None:
        """``seed`` None: the sentence unshuffled (the identity), to show its maps before any shuffle."""
        assert self.model is not None
        try:
            if seed is None:
                count = len(self.model.encode_source(self.sentence).ids)
                self.demo = positions_demo(self.model, self.sentence, permutation=range(count)) if count > 1 else None
            else:
                self.demo = positions_demo(self.model, self.sentence, seed=seed)
        except TransvizError as exc:
            self.demo = None
            show_error(self.error, translated(exc))
            self._draw()
            return
        show_error(self.error, None)
        self._draw()

    def shuffled(self) -> bool:
        return self.demo is not None and self._shuffles > 0

    def _draw(self) -> None:
        self.bind_button()
        demo = self.demo
        for view in self.views:
            view.setVisible(demo is not None)  # an empty heatmap cannot be drawn
        if demo is None:
            self.order.setText("")
            self.with_result.setText("")
            self.without_result.setText("")
            return
        layer, head = self.layer.value(), self.head.value()
        maps = (demo.original, demo.shuffled, demo.original_unpositioned, demo.shuffled_unpositioned)
        titles = (self.tr("Original, with positions"), self.tr("Shuffled, with positions"),
                  self.tr("Original, without positions"), self.tr("Shuffled, without positions"))
        for i, (view, attention, title) in enumerate(zip(self.views, maps, titles, strict=True)):
            tokens = demo.shuffled_tokens if i % 2 else demo.tokens
            view.set_data(attention[layer, head], tokens, tokens, levels=(0.0, 1.0))
            view.set_title(self.tr("{0}: layer {1}, head {2}").format(title, layer, head))
        self._describe(demo)

    def _describe(self, demo: PositionsDemo) -> None:
        if not self.shuffled():
            self.order.setText(self.tr("Source: {0}. Press the button to shuffle its words.")
                               .format(token_line(demo.tokens)))
            self.with_result.setText("")
            self.without_result.setText("")
            return
        self.order.setText(self.tr("Original: {0}\nShuffled: {1} (original positions {2})").format(
            token_line(demo.tokens), token_line(demo.shuffled_tokens), " ".join(map(str, demo.permutation))))
        self.with_result.setText(self.tr(
            "With positions, the largest difference between the shuffled map and the original with its rows and "
            "columns reordered is {0:.3g}: each word's position is part of its input, so the attention changes.")
            .format(demo.difference))
        self.without_result.setText(self.tr(
            "Without positions (NoPositions), the largest difference is {0:.1e}: the same map with its rows and "
            "columns reordered, to float rounding. The model cannot see word order.").format(
            demo.difference_unpositioned))

    def bind_button(self) -> None:
        self.shuffle_button.setText(self.tr("Shuffle again") if self._shuffles else
                                    self.tr("Shuffle the source words"))
        self.shuffle_button.setEnabled(self.model is not None)
