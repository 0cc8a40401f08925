"""Property tests: hostile files, sentences, corpora, settings and command lines each end in a
transviz error or a valid result, within the harness's time bound and under its memory cap.

Each case runs in a worker process (fuzz_harness.py), so that a crash, a hang or a runaway
allocation fails the test instead of the test run. Hypothesis draws the cases reproducibly
(derandomize) and does not shrink: a case is a random generator's seed, and its description in
the failure message says what was done. The large run is ``tests/fuzz/fuzz_run.py`` (the manual,
Reliability).
"""
from __future__ import annotations

import random
from pathlib import Path

import fuzz_inputs as inputs
import pytest
from fuzz_harness import GOOD, HEADROOM, Pool
from fuzz_inputs import Case
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import transviz

pytestmark = pytest.mark.fuzz


def quick(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate])


def check(pool: Pool, case: Case) -> None:
    result = pool.run(case)
    assert result.outcome in GOOD, f"{result.outcome}: {case.kind}: {case.describe} -> {result.detail}"


@pytest.mark.parametrize("kind", inputs.CHECKPOINT_KINDS)
@quick(20)
@given(rng=st.randoms(use_true_random=False))
def test_a_mutated_checkpoint_loads_and_decodes_or_fails_clearly(pool, folder, good, kind, rng):
    check(pool, inputs.make_checkpoint(rng, folder, kind, good, 0))


@quick(8)
@given(rng=st.randoms(use_true_random=False))
def test_info_on_a_mutated_checkpoint_prints_or_fails_clearly(pool, folder, good, rng):
    check(pool, inputs.make_info(rng, folder, good, 0))


# Any code point, lone surrogates and control characters included, or the generator's pastes.
TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)


@quick(100)
@given(text=TEXT | st.builds(inputs.sentence, st.randoms(use_true_random=False)),
       rng=st.randoms(use_true_random=False))
def test_any_sentence_translates_or_is_refused_clearly(pool, text, rng):
    check(pool, inputs.make_sentence(rng, Path(), 0, text))


@quick(12)
@given(rng=st.randoms(use_true_random=False))
def test_command_line_values_at_their_edges(pool, folder, rng):
    check(pool, inputs.make_cli_values(rng, folder, 0))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_decode_writes_what_any_terminal_can_show(pool, folder, rng):
    check(pool, inputs.make_terminal(rng, folder, 0))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_a_random_corpus_trains_or_is_refused_clearly(pool, folder, rng):
    check(pool, inputs.make_corpus(rng, folder, 0))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_a_damaged_settings_file_never_stops_the_start(pool, folder, rng):
    check(pool, inputs.make_settings(rng, folder, 0))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_a_damaged_lesson_is_checked_or_refused_clearly(pool, folder, rng):
    check(pool, inputs.make_lesson(rng, folder, 0))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_a_damaged_session_is_checked_or_refused_clearly(pool, folder, rng):
    check(pool, inputs.make_session(rng, folder, 0))


@pytest.mark.hf
@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_a_damaged_hugging_face_folder_loads_or_is_refused_clearly(pool, folder, hf_model, rng):
    check(pool, inputs.make_hf_folder(rng, folder, 0, hf_model))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_a_damaged_sidecar_model_loads_or_is_refused_clearly(pool, folder, sidecar, rng):
    check(pool, inputs.make_sidecar(rng, folder, 0, sidecar))


@quick(10)
@given(rng=st.randoms(use_true_random=False))
def test_render_export_train_heads_and_convert_values_at_their_edges(pool, folder, rng):
    check(pool, inputs.make_command_values(rng, folder, 0))


def test_no_output_replaces_a_file_of_another_kind(pool, folder, good):
    failures = []
    for case in inputs.output_cases(folder / "outputs", good):
        result = pool.run(case)
        if result.outcome not in GOOD:
            failures.append(f"{result.outcome}: {case.describe} -> {result.detail}")
    assert not failures, "\n".join(failures)


def test_the_harness_sees_the_memory_cap_a_death_and_a_hang():
    # Past the cap by a margin: what a worker maps moves by tens of MB as the allocator trims its heap.
    jobs = [({"do": "allocate", "bytes": HEADROOM + 512 * 1024**2}, "crash", "MemoryError"),
            ({"do": "abort"}, "crash", "SIGABRT"),
            ({"do": "wait", "seconds": 3600}, "hang", "no answer")]
    pool = Pool(1, bound=1)
    try:
        for job, outcome, detail in jobs:
            result = pool.run(Case("harness", job["do"], job))
            assert (result.outcome, detail in result.detail) == (outcome, True), result
    finally:
        pool.close()


def test_the_same_seed_gives_the_same_cases(folder, good):
    first, second = (inputs.mutate_checkpoint(random.Random("0:x:1"), "checkpoint: metadata edits", good)
                     for _ in range(2))
    assert first == second
    assert inputs.good_checkpoint(folder / "again") == good  # a second save, in its own key order
    assert transviz.load_model(str(folder / "again" / "good.safetensors")).config == \
        transviz.load_model("default").config
