"""Started by test_window_fits.py in a process of its own, whose offscreen screen is 1366 x 768
(presentation mode sizes its text from the screen, so the test needs that screen): opens the window
as `transviz` does, with one model, then prints, as JSON, the window's sizes in each language,
presentation mode on and off, each tab and each view of the Concepts tab, after long tokens have
been decoded."""
from __future__ import annotations

import json
import sys

import torch

import transviz
from transviz.core.data.tasks import SYMBOLS
from transviz.core.io.resources import shipped_models
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab
from transviz.gui.app import application, dispose
from transviz.gui.main_window import MainWindow
from transviz.gui.services.language import LANGUAGES, set_language
from transviz.gui.services.theme import with_changes

REVERSE_SENTENCE = "0123456789abcdefghij0123456"  # 27 characters: 27 tokens each way


def reverse_model() -> transviz.Model:
    """An untrained model with the reverse task's character vocabularies."""
    torch.manual_seed(0)
    src, tgt = Vocab(list(SYMBOLS), level="char"), Vocab(list(SYMBOLS), level="char")
    config = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=2,
                                  n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=64)
    return transviz.Model(Transformer(config).eval(), src, tgt, {"task": "reverse"})


def settle(app) -> None:
    for _ in range(4):  # layouts and deferred refits run on the next passes of the event loop
        app.sendPostedEvents()
        app.processEvents()


def sizes(window: MainWindow) -> dict[str, list[int]]:
    def pair(size) -> list[int]:
        return [size.width(), size.height()]

    available = window.screen().availableGeometry()
    return {"hint": pair(window.minimumSizeHint()), "minimum": pair(window.minimumSize()),
            "size": pair(window.frameGeometry().size()), "available": pair(available.size()),
            "on_screen": [int(available.contains(window.frameGeometry()))],
            **{f"tab {name}": pair(panel.minimumSizeHint()) for name, panel in window.panels.items()}}


def main(name: str) -> None:
    app = application()
    window = MainWindow()
    window.view_choices.show_window()
    settle(app)
    measured = {"start": sizes(window)}
    model = reverse_model() if name == "reverse" else transviz.load_model(shipped_models()[name])
    window.workspace.set_model(model)
    explorer = window.panels["explorer"]
    if name == "reverse":
        explorer.source.sentence.setText(REVERSE_SENTENCE)
    explorer.controller.run_to_end()  # the longest output: every token written
    settle(app)
    for language in LANGUAGES:
        set_language(language)
        for presentation in (True, False):  # off last: the window must shrink back
            window.view_choices.choose_appearance(with_changes(presentation=presentation))
            mode = "presentation" if presentation else "desktop"
            for name, panel in window.panels.items():  # every tab, by its id
                window.tabs.setCurrentWidget(panel)
                settle(app)
                measured[f"{language} {mode} {name}"] = sizes(window)
            concepts = window.panels["concepts"]
            window.tabs.setCurrentWidget(concepts)
            for view in concepts.views:  # each view of the Concepts tab, drawn
                concepts.select(view.name)
                settle(app)
                measured[f"{language} {mode} concepts {view.name}"] = sizes(window)
    window.shutdown()
    dispose(window)
    print(json.dumps(measured))


if __name__ == "__main__":
    main(sys.argv[1])
