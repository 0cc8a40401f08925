"""The settings of a training run: the data, the model's size, the optimiser, the initialisation,
the device. Starts at the toy-de-en recipe; impossible combinations are reported inline (and
Start stays disabled) before anything runs.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...core.base.errors import ConfigError, TransvizError
from ...core.base.messages import Message
from ...core.data.tasks import TASK_TITLES, TASKS, describe_task
from ...core.model.config import ModelConfig, TrainConfig
from ...core.model.init import DEFAULT_VALUES, SCHEMES, TITLES
from ...core.training.devices import available_devices
from ...core.training.recipes import recipe
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items_by_data
from .labels import bound_label, error_label, show_error

DEFAULT_RECIPE = "toy-de-en"
TSV_SUFFIXES = (".tsv", ".txt")
AUTO = "auto"


DESCRIPTION_ROLE = Qt.ItemDataRole.UserRole + 1  # a device entry's description as the core wrote it


def device_combo() -> QComboBox:
    """auto, then every device torch can use here, with what was found (item data: the name to pass on).
    :func:`name_devices` names the entries (again, after a language change)."""
    combo = QComboBox()
    combo.addItem("", AUTO)
    for device in available_devices():
        combo.addItem("", device.name)
        combo.setItemData(combo.count() - 1, device.description, DESCRIPTION_ROLE)
    name_devices(combo)
    return combo


def name_devices(combo: QComboBox) -> None:
    """Name a :func:`device_combo`'s entries in the language in use."""
    combo.setItemText(0, QCoreApplication.translate("TrainingForm", "auto: {0}").format(combo.itemData(1)))
    for index in range(1, combo.count()):
        description = translated(combo.itemData(index, DESCRIPTION_ROLE))
        combo.setItemText(index, f"{combo.itemData(index)}: {description}")


def _spin(low: int, high: int, step: int = 1) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setGroupSeparatorShown(True)
    return spin


def _fraction(high: float, step: float) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(0.0, high)
    spin.setDecimals(2)
    spin.setSingleStep(step)
    return spin


class TrainingForm(Retranslated, QWidget):
    """Every setting of a run, checked as it is typed.

    Signals:
        validity_changed(bool): the settings became valid (Start may run) or invalid.
    """

    validity_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._valid = False
        self.error = error_label()
        layout = QVBoxLayout(self)
        for box in (self._data_box(), self._model_box(), self._optimiser_box(), self._live_box()):
            layout.addWidget(box)
        layout.addWidget(self.error)
        layout.addStretch(1)
        for combo in self.findChildren(QComboBox):  # long entries must not widen the whole tab
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.reset_to_recipe()
        for spin in self.findChildren(QSpinBox):
            spin.valueChanged.connect(self.validate)
        for fraction in self.findChildren(QDoubleSpinBox):
            fraction.valueChanged.connect(self.validate)
        for combo in self.findChildren(QComboBox):
            combo.currentIndexChanged.connect(self.validate)
        for edit in self.findChildren(QLineEdit):
            edit.textChanged.connect(self.validate)
        for check in self.findChildren(QCheckBox):
            check.toggled.connect(self.validate)
        self.validate()

    # -- construction --------------------------------------------------------------------------
    def _group(self, title: Callable[[], str],
               rows: list[tuple[Callable[[], str] | None, QWidget | QLayout]]) -> QGroupBox:
        """A titled box of labelled rows (named again after a language change)."""
        box = QGroupBox()
        self.bind_text(box.setTitle, title)
        form = QFormLayout(box)
        for label, field in rows:
            form.addRow(bound_label(self, label) if label is not None else QLabel(), field)
        return box

    def _data_box(self) -> QGroupBox:
        self.task = QComboBox()
        for name in TASKS:
            self.task.addItem("", name)
            self.task.setItemData(self.task.count() - 1, describe_task(name), Qt.ItemDataRole.ToolTipRole)
        self.task.addItem("", "")
        self.bind_text(lambda texts: set_items_by_data(self.task, texts), lambda: {
            **{name: translated(Message(title)) for name, title in TASK_TITLES.items()},
            "": self.tr("your TSV file (source<TAB>target)")})
        self.tsv = QLineEdit()
        self.bind_text(self.tsv.setPlaceholderText, lambda: self.tr("choose or drop a .tsv file"))
        browse = QPushButton()
        self.bind_text(browse.setText, lambda: self.tr("Browse..."))
        browse.clicked.connect(self._browse_tsv)
        self.tsv_row = QWidget()
        row = QHBoxLayout(self.tsv_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.tsv, 1)
        row.addWidget(browse)
        self.probe = QComboBox()
        self.probe.setEditable(True)
        probe_edit = self.probe.lineEdit()
        assert probe_edit is not None  # an editable combo box has one
        self.bind_text(probe_edit.setPlaceholderText, lambda: self.tr("the task's first example"))
        self.bind_text(self.probe.setToolTip,
                       lambda: self.tr("The sentence whose attention is shown as training goes on"))
        self.task.currentIndexChanged.connect(self._on_task_changed)
        return self._group(lambda: self.tr("Data"), [
            (lambda: self.tr("Task"), self.task),
            (lambda: self.tr("Corpus"), self.tsv_row),
            (lambda: self.tr("Probe sentence"), self.probe),
        ])

    def _model_box(self) -> QGroupBox:
        self.layers, self.heads = _spin(1, 12), _spin(1, 32)
        self.d_model, self.d_ff = _spin(2, 2048, 8), _spin(2, 8192, 64)
        self.dropout = _fraction(0.9, 0.05)
        self.norm = self.choice_box(lambda: {
            "post": self.tr("post-LN (the paper)"), "pre": self.tr("pre-LN (steadier training)")})
        self.kv_heads = _spin(0, 32)
        self.bind_text(self.kv_heads.setSpecialValueText, lambda: self.tr("one per head"))
        self.bind_text(self.kv_heads.setToolTip, lambda: self.tr(
            "Heads of keys and values, each shared by a group of query heads: 1 is multi-query attention, "
            "fewer than the heads grouped-query; the KV cache shrinks by the same factor"))
        self.positions = self.choice_box(lambda: {  # the kinds transviz trains with (TRAINED_POSITIONALS)
            "sinusoidal": self.tr("sine table (the paper)"), "learned": self.tr("learned table"),
            "rotary": self.tr("rotary (RoPE)"), "alibi": self.tr("ALiBi distance bias"),
            "t5": self.tr("T5's relative buckets"), "none": self.tr("none")})
        self.bind_text(self.positions.setToolTip, lambda: self.tr(
            "How the model knows word order: a table added to the embeddings, or inside self-attention (rotary "
            "turns queries and keys by their position; ALiBi subtracts a slope times the distance from each score)"))
        self.layer_norm = self.choice_box(lambda: {
            "standard": self.tr("LayerNorm (the paper)"), "rms": self.tr("RMSNorm (no mean taken away, no bias)")})
        self.architecture = self.choice_box(lambda: {
            "encoder-decoder": self.tr("encoder and decoder (the paper)"),
            "prefix-lm": self.tr("decoder-only, prefix LM"), "decoder-only": self.tr("decoder-only, causal")})
        self.bind_text(self.architecture.setToolTip, lambda: self.tr(
            "Decoder-only: one stack reads the source, the start token and the translation as one stream and "
            "translates by continuing it; in a prefix LM the source's words see each other both ways"))
        self.attention_window = _spin(0, 512)
        self.bind_text(self.attention_window.setSpecialValueText, lambda: self.tr("every key"))
        self.bind_text(self.attention_window.setToolTip, lambda: self.tr(
            "Sliding-window self-attention: a query sees only keys fewer than this many positions away (in the "
            "decoder the last ones, itself included)"))
        self.share_embeddings = QCheckBox()
        self.bind_text(self.share_embeddings.setText, lambda: self.tr("one embedding table for both sides"))
        self.bind_text(self.share_embeddings.setToolTip,
                       lambda: self.tr("One joint vocabulary and embedding table for source and target"))
        self.tie_output = QCheckBox()
        self.bind_text(self.tie_output.setText, lambda: self.tr("output layer = target embedding"))
        return self._group(lambda: self.tr("Model"), [
            (lambda: self.tr("Architecture"), self.architecture),
            (lambda: self.tr("Layers (each side)"), self.layers),
            (lambda: self.tr("Heads"), self.heads),
            (lambda: self.tr("Key/value heads"), self.kv_heads),
            (lambda: self.tr("d_model"), self.d_model),
            (lambda: self.tr("d_ff"), self.d_ff),
            (lambda: self.tr("Dropout"), self.dropout),
            (lambda: self.tr("Norm placement"), self.norm),
            (lambda: self.tr("Norm kind"), self.layer_norm),
            (lambda: self.tr("Positions"), self.positions),
            (lambda: self.tr("Attention window"), self.attention_window),
            (lambda: self.tr("Weight sharing"), self.share_embeddings),
            (None, self.tie_output),
        ])

    def _optimiser_box(self) -> QGroupBox:
        self.lr = QLineEdit()
        self.schedule = self.choice_box(lambda: {
            "constant": self.tr("constant"), "warmup": self.tr("linear warm-up, then constant"),
            "warmup-decay": self.tr("warm-up, then linear decay to 0"),
            "noam": self.tr("noam (the paper; lr is a scale factor)")})
        self.warmup = _spin(0, 1_000_000, 50)
        self.label_smoothing = _fraction(0.5, 0.05)
        self.batch_size = _spin(1, 4096, 8)
        self.steps = _spin(1, 10_000_000, 100)
        self.init = self.choice_box(lambda: {name: translated(Message(TITLES.get(name, name))) for name in SCHEMES})
        self.init_scale = QLineEdit()
        self.bind_text(self.init_scale.setPlaceholderText, lambda: self.tr("std or half-width"))
        self.init.currentIndexChanged.connect(self._on_init_changed)
        init_row = QHBoxLayout()
        init_row.addWidget(self.init, 1)
        init_row.addWidget(self.init_scale)
        self.device = device_combo()
        return self._group(lambda: self.tr("Optimiser (Adam)"), [
            (lambda: self.tr("Learning rate"), self.lr),
            (lambda: self.tr("Schedule"), self.schedule),
            (lambda: self.tr("Warm-up steps"), self.warmup),
            (lambda: self.tr("Label smoothing"), self.label_smoothing),
            (lambda: self.tr("Batch size (sentences)"), self.batch_size),
            (lambda: self.tr("Steps"), self.steps),
            (lambda: self.tr("Initialisation"), init_row),
            (lambda: self.tr("Device"), self.device),
        ])

    def _live_box(self) -> QGroupBox:
        self.snapshot_every = _spin(0, 100_000, 10)
        self.bind_text(self.snapshot_every.setSpecialValueText, lambda: self.tr("never"))
        self.eval_every = _spin(0, 100_000, 50)
        self.bind_text(self.eval_every.setSpecialValueText, lambda: self.tr("at the end only"))
        self.checkpoint_every = _spin(0, 100_000, 100)
        self.bind_text(self.checkpoint_every.setSpecialValueText, lambda: self.tr("at the end only"))
        return self._group(lambda: self.tr("Watching"), [
            (lambda: self.tr("Attention every (steps)"), self.snapshot_every),
            (lambda: self.tr("Validate every (steps)"), self.eval_every),
            (lambda: self.tr("Save every (steps)"), self.checkpoint_every),
        ])

    def retranslate(self) -> None:
        super().retranslate()
        name_devices(self.device)
        self.validate()  # the message under the form

    # -- filling in ----------------------------------------------------------------------------
    def reset_to_recipe(self, name: str = DEFAULT_RECIPE) -> None:
        """Every setting as the tested recipe ``name`` has it (the defaults)."""
        chosen = recipe(name)
        self.set_task(chosen.task)
        self.set_settings({**dataclasses.asdict(ModelConfig(1, 1)), **chosen.model}, chosen.train)

    def set_task(self, name: str) -> None:
        self.task.setCurrentIndex(max(0, self.task.findData(name)))

    def set_tsv(self, path: str) -> None:
        """Train on the corpus at ``path`` (a dropped or chosen file)."""
        self.task.setCurrentIndex(self.task.findData(""))
        self.tsv.setText(path)

    def set_settings(self, model: dict[str, Any], config: TrainConfig) -> None:
        """Fill the model (ModelConfig fields) and training settings in."""
        self.layers.setValue(model["n_encoder_layers"])
        self.heads.setValue(model["n_heads"])
        self.kv_heads.setValue(model.get("n_kv_heads", 0))
        self.d_model.setValue(model["d_model"])
        self.d_ff.setValue(model["d_ff"])
        self.dropout.setValue(model["dropout"])
        self.norm.setCurrentIndex(self.norm.findData(model["norm"]))
        self.layer_norm.setCurrentIndex(max(0, self.layer_norm.findData(model.get("layer_norm", "standard"))))
        self.attention_window.setValue(model.get("attention_window", 0))
        self.architecture.setCurrentIndex(max(0, self.architecture.findData(model.get("architecture",
                                                                                      "encoder-decoder"))))
        self.positions.setCurrentIndex(max(0, self.positions.findData(model.get("positional", "sinusoidal"))))
        self.share_embeddings.setChecked(model["share_embeddings"])
        self.tie_output.setChecked(model["tie_output"])
        self.lr.setText(f"{config.lr:g}")
        self.schedule.setCurrentIndex(self.schedule.findData(config.schedule))
        self.warmup.setValue(config.warmup_steps)
        self.label_smoothing.setValue(config.label_smoothing)
        self.batch_size.setValue(config.batch_size)
        self.steps.setValue(config.steps)
        name, _, scale = config.init.partition(":")
        self.init.setCurrentIndex(self.init.findData(name))
        self.init_scale.setText(scale)
        self.probe.setEditText(config.probe or "")
        self.snapshot_every.setValue(config.snapshot_every)
        self.eval_every.setValue(config.eval_every)
        self.checkpoint_every.setValue(config.checkpoint_every)
        self.device.setCurrentIndex(max(0, self.device.findData(config.device)))
        self._base = config  # settings the form does not show (clipping, seed, eval limit) come from here

    def set_examples(self, examples: tuple[str, ...]) -> None:
        """Offer the data's example sources as probes (keeping what is typed)."""
        text = self.probe.currentText()
        self.probe.blockSignals(True)
        self.probe.clear()
        self.probe.addItems(list(examples))
        self.probe.setEditText(text)
        self.probe.blockSignals(False)

    def _on_task_changed(self) -> None:
        self.tsv_row.setEnabled(self.task.currentData() == "")
        self.probe.clear()  # another task's sentences are no probe for this one

    def _on_init_changed(self) -> None:
        name = self.init.currentData()
        self.init_scale.setEnabled(name in DEFAULT_VALUES)
        if name in DEFAULT_VALUES and not self.init_scale.text():
            self.init_scale.setText(f"{DEFAULT_VALUES[name]:g}")
        if name not in DEFAULT_VALUES:
            self.init_scale.clear()

    def _browse_tsv(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a corpus"), "",
                                              self.tr("Sentence pairs (*.tsv *.txt)"))
        if path:
            self.set_tsv(path)

    # -- reading and checking ------------------------------------------------------------------
    def model_settings(self) -> dict[str, Any]:
        layers = self.layers.value()
        return dict(n_encoder_layers=layers, n_decoder_layers=layers, n_heads=self.heads.value(),
                    n_kv_heads=self.kv_heads.value(),
                    d_model=self.d_model.value(), d_ff=self.d_ff.value(), dropout=round(self.dropout.value(), 4),
                    norm=self.norm.currentData(), layer_norm=self.layer_norm.currentData(),
                    attention_window=self.attention_window.value(), positional=self.positions.currentData(),
                    architecture=self.architecture.currentData(),
                    share_embeddings=self.share_embeddings.isChecked(), tie_output=self.tie_output.isChecked())

    def _number(self, edit: QLineEdit, what: str) -> float:
        try:
            return float(edit.text().strip())
        except ValueError:
            raise ConfigError(self.tr("{0} must be a number (like 1e-3), not '{1}'")
                              .format(what, edit.text())) from None

    def train_config(self) -> TrainConfig:
        name, scale = self.init.currentData(), self.init_scale.text().strip()
        if name in DEFAULT_VALUES and scale:
            what = self.tr("the initialisation scale")  # outside the f-string, where lupdate finds it
            init = f"{name}:{self._number(self.init_scale, what)}"
        else:
            init = name
        return dataclasses.replace(
            self._base, steps=self.steps.value(), batch_size=self.batch_size.value(),
            lr=self._number(self.lr, self.tr("the learning rate")), schedule=self.schedule.currentData(),
            warmup_steps=self.warmup.value(), label_smoothing=round(self.label_smoothing.value(), 4), init=init,
            device=self.device.currentData(), snapshot_every=self.snapshot_every.value(),
            eval_every=self.eval_every.value(), checkpoint_every=self.checkpoint_every.value(),
            probe=self.probe.currentText().strip() or None)

    def data(self) -> tuple[str, str | None]:
        """The built-in task's name, or ``("", path)`` for a TSV corpus."""
        if self.task.currentData():
            return self.task.currentData(), None
        path = self.tsv.text().strip()
        if not path:
            raise ConfigError(self.tr("choose a TSV file of sentence pairs (or drop one on this tab)"))
        return "", path

    def check(self) -> str | None:
        """What is wrong with the settings, in plain words, or None."""
        try:
            self.data()
            # vocabulary sizes come from the data; 2 stands in for them (the checks do not depend on it)
            ModelConfig(2, 2, **self.model_settings())
            self.train_config()
        except TransvizError as exc:
            return translated(exc)
        return None

    def validate(self) -> bool:
        problem = self.check()
        show_error(self.error, problem)
        valid = problem is None
        if valid != self._valid:
            self._valid = valid
            self.validity_changed.emit(valid)
        return valid

    @property
    def valid(self) -> bool:
        return self._valid
