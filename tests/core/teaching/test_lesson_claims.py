"""What the shipped lessons say of their pictures, checked on the pictures themselves (issue 34)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import transviz
from transviz.core.decoding.interventions import NoPositions
from transviz.core.teaching.lesson import read

LESSONS = Path(__file__).resolve().parents[3] / "resources" / "lessons"


def test_lesson_3_swaps_two_words_and_the_map_only_swaps_with_them():
    """Slides 3 and 4: without positions the encoder's self-attention of the sentence with 'er' and
    'hund' swapped is the first map with those rows and columns swapped, every weight the same."""
    slides = read(LESSONS / "03-positions.toml").slides
    first, swapped = slides[2], slides[3]
    words, other = first.sentence.split(), swapped.sentence.split()
    order = [words.index(word) for word in other]  # where each word of the swapped sentence was
    assert sorted(order) == list(range(len(words))) and order != list(range(len(words)))
    model = transviz.load_model(first.model)
    maps = [transviz.decode(model, slide.sentence, max_len=1, interventions=[NoPositions("encoder")])
            .encoder_self_attention for slide in (first, swapped)]  # (layers, heads, S, S)
    np.testing.assert_allclose(maps[1], maps[0][:, :, order][:, :, :, order], atol=1e-5)
    with_positions = transviz.decode(model, swapped.sentence, max_len=1).encoder_self_attention
    assert not np.allclose(with_positions, maps[0][:, :, order][:, :, :, order], atol=1e-3)  # positions matter


def test_lesson_3_opens_the_why_tabs_shuffle_page():
    assert read(LESSONS / "03-positions.toml").slides[-1].page == "positions"
