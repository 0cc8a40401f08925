"""The words a model knows: its source vocabulary in a list a filter narrows, so that a teacher
writes sentences the model can read (a word it does not know is read as <unk>). Double-click or
Enter puts a word into the sentence."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ...core.model.vocab import SPECIALS, Vocab


class KnownWords(QDialog):
    """A list of ``vocab``'s tokens (special tokens left out) and a filter.

    Signals:
        chosen(str): a word was double-clicked or Enter pressed on it.
    """

    chosen = Signal(str)

    def __init__(self, vocab: Vocab, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Words this model knows"))
        self.words = sorted((token for token in vocab.itos if token not in SPECIALS), key=str.casefold)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(self.tr("filter"))
        self.filter.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.count = QLabel()
        layout = QVBoxLayout(self)
        for widget in (self.filter, self.list, self.count):
            layout.addWidget(widget)
        self.filter.textChanged.connect(self._show)
        self.list.itemActivated.connect(lambda item: self.chosen.emit(item.text()))
        self.filter.returnPressed.connect(self._choose_first)
        self._show("")
        self.filter.setFocus()

    def _show(self, text: str) -> None:
        shown = [word for word in self.words if text.casefold() in word.casefold()]
        self.list.clear()
        for word in shown:
            self.list.addItem(QListWidgetItem(word))
        self.count.setText(self.tr("{0} of {1} words; double-click one to add it to the sentence").format(
            len(shown), len(self.words)))

    def _choose_first(self) -> None:
        item = self.list.item(0)
        if item is not None:
            self.chosen.emit(item.text())
