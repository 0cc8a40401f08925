"""The explorer's sentence box: a random sentence of the task's test split with its translation,
and the words the model knows, which go into the sentence (issue 35, item 18)."""
from __future__ import annotations

from transviz.core.data.tasks import load_task
from transviz.core.model.vocab import SPECIALS


def test_random_puts_a_test_sentence_and_its_translation(shipped_window):
    box = shipped_window.panels["explorer"].source
    box.random_button.click()  # a random one: the sentence is one of the test split's
    assert box.sentence.text() in {p.source for p in load_task("toy-de-en").test}
    test = load_task("toy-de-en").test
    pair = box.use_test_pair(pick=lambda pairs: pairs[7])
    assert pair == test[7] and pair.source not in {p.source for p in load_task("toy-de-en").train}
    assert box.sentence.text() == pair.source and box.reference.text() == pair.target
    assert shipped_window.workspace.session.source == pair.source
    box.sentence.setText("ich mochte ein bier")  # another sentence takes the test pair's translation out
    assert box.reference.text() == "i want a beer"  # (this one is an example: its own translation)


def test_random_is_off_for_a_model_without_a_built_in_task(open_window, make_model):
    window = open_window(model=make_model())
    box = window.panels["explorer"].source
    assert not box.random_button.isEnabled() and box.use_test_pair() is None
    assert box.words_button.isEnabled()


def test_the_known_words_are_the_vocabulary_and_go_into_the_sentence(shipped_window, shipped_model, qtbot):
    box = shipped_window.panels["explorer"].source
    dialog = box.show_known_words()
    qtbot.addWidget(dialog)
    listed = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert listed == sorted((t for t in shipped_model.src_vocab.itos if t not in SPECIALS), key=str.casefold)
    dialog.filter.setText("bier")
    narrowed = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert narrowed and all("bier" in word for word in narrowed)
    box.sentence.setText("ich mochte ein")
    box.sentence.end(False)
    dialog.list.itemActivated.emit(dialog.list.item(narrowed.index("bier")))
    assert box.sentence.text() == "ich mochte ein bier"
