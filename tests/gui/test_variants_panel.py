"""The variants tab on the real window with the shipped siblings: what each column draws against
transviz.decode at the same step, one colour scale, the keys, the head frames against the weights'
sharing, a decoder-only model's one map, the output diff, and files that do not load."""
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

import transviz
from transviz.core.analysis.walkthrough import KINDS
from transviz.gui.panels.variants import VariantsPanel

SENTENCE = "ich mochte ein bier"


@pytest.fixture
def panel(shipped_window, qtbot):
    variants = shipped_window.panels["variants"]
    assert isinstance(variants, VariantsPanel)
    shipped_window.tabs.setCurrentWidget(variants)
    qtbot.waitUntil(variants.hasFocus)  # Space steps at once
    return variants


def press(qtbot, panel, key, times=1):
    for _ in range(times):
        qtbot.keyClick(panel, key)


def columns(panel):
    return panel.columns[:panel.count.value()]


def test_the_columns_show_the_loaded_model_and_two_siblings_and_the_explorers_sentence(panel):
    assert panel.sentence.text() == SENTENCE
    assert [column.source() for column in columns(panel)] == ["", "gqa", "decoder-only"]
    assert columns(panel)[0].model.currentText() == "loaded: default"
    assert panel.lockstep is not None and panel.lockstep.position == 0
    assert all(not column.map.isVisibleTo(panel) for column in columns(panel))
    assert "has not run yet" in columns(panel)[0].output.text()


def test_space_steps_every_model_and_each_map_is_its_models_own_at_that_step(panel, qtbot):
    press(qtbot, panel, Qt.Key.Key_Space, 3)
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    panel.layer.setValue(1)
    panel.head.setCurrentIndex(2)
    assert panel.lockstep.position == 3
    for column in columns(panel)[:2]:  # the encoder-decoders
        model = transviz.load_model(column.source() or "default")
        alone = transviz.decode(model, SENTENCE, max_len=3)
        expected = np.where(np.triu(np.ones((3, 3), bool), 1), np.nan, alone.decoder_self_attention[1, 2])
        np.testing.assert_allclose(column.map.data, expected, atol=1e-6)
        assert column.map.row_labels() == alone.query_labels


def test_one_colour_scale_for_every_model(panel, qtbot):
    press(qtbot, panel, Qt.Key.Key_Space, 2)
    largest = max(np.nanmax(column.map.data) for column in columns(panel))
    assert all(column.map.levels == pytest.approx((0.0, largest)) for column in columns(panel))
    assert f"0 to {largest:.2f}" in panel.scale_note.text()


def test_back_home_and_end(panel, qtbot):
    press(qtbot, panel, Qt.Key.Key_End)
    ended = panel.lockstep.position
    assert ended >= 4 and panel.lockstep.finished and "(ended)" in columns(panel)[0].output.text()
    press(qtbot, panel, Qt.Key.Key_Left)
    assert panel.lockstep.position == ended - 1 and columns(panel)[0].map.data.shape[0] == ended - 1
    press(qtbot, panel, Qt.Key.Key_Home)
    assert panel.lockstep.position == 0


def test_typing_a_space_in_the_sentence_does_not_step(panel, qtbot):
    panel.sentence.setFocus()
    qtbot.keyClick(panel.sentence, Qt.Key.Key_Space)
    assert panel.lockstep.position == 0 and panel.sentence.text() == SENTENCE + " "


def test_the_figures_are_the_models_parameters_cache_and_recorded_exact_match(panel, qtbot):
    press(qtbot, panel, Qt.Key.Key_Space, 2)
    gqa = transviz.load_model("gqa")
    parameters = sum(p.numel() for p in gqa.net.parameters())
    text = columns(panel)[1].facts.text()
    assert f"{parameters:,} parameters" in text and f"{gqa.facts['test']['exact_match']:.1%}" in text
    # 2 x layers x 2 key/value heads x d_k x 4 bytes, for the 4 source tokens and the 2 inputs fed
    per_token = 2 * gqa.config.n_decoder_layers * 2 * gqa.config.d_k * 4
    assert f"KV cache {per_token * 6:,} bytes now, {per_token:,} more per token" in text


def test_the_head_buttons_are_framed_by_the_key_value_head_they_share(panel, qtbot):
    columns(panel)[2].choose("mqa")
    first, gqa, mqa = (column.groups for column in columns(panel))
    assert first.groups == [[0], [1], [2], [3]] and gqa.groups == [[0, 1], [2, 3]] and mqa.groups == [[0, 1, 2, 3]]
    assert len(gqa.frames) == 2 and [b.text() for b in gqa.buttons] == ["0", "1", "2", "3"]
    press(qtbot, panel, Qt.Key.Key_Space)
    gqa.buttons[3].click()
    assert panel.head.currentIndex() == 3 and [b.isChecked() for b in first.buttons] == [False, False, False, True]
    assert "Query heads 2, 3 read key/value head 1" == gqa.frames[1].toolTip()


def test_a_decoder_only_model_shows_its_one_map_with_the_parts_named(panel, qtbot):
    press(qtbot, panel, Qt.Key.Key_Space, 3)
    stream = columns(panel)[2]
    alone = transviz.decode(transviz.load_model("decoder-only"), SENTENCE, max_len=3)
    whole = np.concatenate([alone.cross_attention[0, 0], alone.decoder_self_attention[0, 0]], axis=1)
    shown = stream.map.data
    source = len(alone.source_tokens)
    np.testing.assert_allclose(shown[:, :source], whole[:, :source], atol=1e-6)
    assert np.isnan(shown[0, source + 1]) and not np.isnan(shown[1, source + 1])  # the output part's future
    np.testing.assert_allclose(np.nansum(shown, axis=1), 1.0, atol=1e-5)
    assert stream.map.column_divider == source
    assert stream.map.column_labels() == alone.source_tokens + alone.target_tokens
    assert stream.map.title == "decoder-only: one map, source | output"
    assert columns(panel)[0].map.column_divider is None
    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))
    assert stream.map.column_divider is None and "source's rows" in stream.map.title


def test_an_output_that_differs_from_the_first_is_marked(panel, qtbot, model_file):
    columns(panel)[1].choose(str(model_file))  # an untrained model: another output
    panel.sentence.setText("ich mochte ein bier")
    press(qtbot, panel, Qt.Key.Key_End)
    first, other = columns(panel)[0].output.text(), columns(panel)[1].output.text()
    assert "<u" not in first and "<s style" not in first and "beer" in first
    assert "<u" in other and "<s style" in other


def test_a_file_that_does_not_load_is_named_and_nothing_is_drawn(panel, qtbot, tmp_path):
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(b"not a checkpoint")
    columns(panel)[1].choose(str(broken))
    assert panel.lockstep is None and "broken.safetensors" in panel.error.text()
    press(qtbot, panel, Qt.Key.Key_Space)  # nothing to step, and no error
    columns(panel)[1].choose("mqa")
    assert panel.lockstep is not None and not panel.error.isVisibleTo(panel)


def test_four_models_fit_the_window(panel, qtbot):
    panel.count.setValue(4)
    press(qtbot, panel, Qt.Key.Key_End)
    shown = columns(panel)
    assert len(shown) == 4 and all(column.isVisible() for column in shown)
    assert shown[3].source() == "rope"
    window = panel.window()
    assert window.width() <= 1366 and window.height() <= 768
    width = QFontMetrics(shown[0].facts.font()).horizontalAdvance("1,527,198 parameters")
    assert all(column.width() > width for column in shown)


def test_the_tab_follows_the_explorers_sentences_until_one_is_typed_here(panel, qtbot):
    explorer = panel.window().panels["explorer"]
    explorer.source.sentence.setText("ich mochte ein wasser")
    qtbot.waitUntil(lambda: panel.sentence.text() == "ich mochte ein wasser")
    assert panel.lockstep.sessions[1].source == "ich mochte ein wasser"
    panel.sentence.setFocus()
    qtbot.keyClicks(panel.sentence, " bitte")
    explorer.source.sentence.setText("ich mochte ein bier")
    qtbot.wait(300)
    assert panel.sentence.text() == "ich mochte ein wasser bitte"


def test_a_lessons_slide_shows_the_siblings_at_its_step(open_window, qtbot):
    from transviz.core.io.resources import shipped_lessons
    from transviz.core.teaching.lesson import read

    path = shipped_lessons()["07-variants"]
    slides = read(path).slides
    index = next(i for i, slide in enumerate(slides) if slide.tab == "variants")
    window = open_window((1366, 768))
    assert window.open_lesson(path)
    try:
        window.lesson_mode.go(index)
        variants = window.panels["variants"]
        assert window.tabs.currentWidget() is variants
        assert variants.lockstep.position == slides[index].steps == 4
        assert variants.sentence.text() == slides[index].sentence
        assert all(column.map.data.shape[0] == 4 for column in columns(variants))
    finally:
        window.lesson_mode.stop()


def test_a_hugging_face_decoder_only_folder_is_a_column(panel, qtbot, tmp_path):
    pytest.importorskip("transformers")
    from hf_folders import llama_folder

    folder = llama_folder(tmp_path / "llama", heads=4, kv_heads=2)
    panel.count.setValue(2)
    columns(panel)[1].choose(str(folder))
    press(qtbot, panel, Qt.Key.Key_Space, 2)
    llama = columns(panel)[1]
    alone = transviz.decode(transviz.load_model(folder), SENTENCE, max_len=2)
    source = len(alone.source_tokens)
    shown = llama.map.data
    np.testing.assert_allclose(shown[:, :source], alone.cross_attention[0, 0], atol=1e-6)
    np.testing.assert_allclose(shown[1, source:], alone.decoder_self_attention[0, 0, 1], atol=1e-6)
    assert llama.map.column_divider == source and llama.groups.groups == [[0, 1], [2, 3]]
    assert llama.facts.text().endswith("test exact match not recorded")
