"""Random step/back/force/rewind/reset/strategy sequences with Beam(rule="hf") among the
strategies: the same invariants as test_decoding_machine (every hypothesis and the newest record
equal a fresh recomputation, positions agree), and every hf beam keeps its shape."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule
from test_decoding_machine import MODEL, TOKENS, SessionMachine

import transviz
from decoding_models import SOURCE
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Greedy

HF_STRATEGIES = st.sampled_from([Greedy(), Beam(3, 1.0), Beam(2, 0.6, rule="hf"), Beam(3, 1.0, rule="hf",
                                 early_stopping=True), Beam(3, 2.0, rule="hf", early_stopping="never")])


class HfSessionMachine(SessionMachine):
    @initialize(strategy=HF_STRATEGIES)
    def start(self, strategy: Beam | Greedy) -> None:
        self.session = DecodingSession(MODEL, SOURCE, strategy=strategy, top_k=3, max_len=8)

    @rule(strategy=HF_STRATEGIES)
    def switch(self, strategy: Beam | Greedy) -> None:
        self.session.set_strategy(strategy)

    @rule(token=st.sampled_from(TOKENS))
    def force(self, token: str) -> None:
        beam = self.session.beam_history[-1]
        if self.session.cant_step() or beam.hypotheses[beam.followed].finished:
            self.unchanged_after(lambda: self.session.force(token))
        else:
            record = self.session.force(token)
            assert record.forced and record.token == token and self.session.output_tokens[-1] == token
            assert len(self.session.beam_history[-1].hypotheses) == 1

    @invariant()
    def hf_beams_keep_their_shape(self) -> None:
        for step in self.session.beam_history:
            ended, live = step.hypotheses[: step.kept], [step.hypotheses[i] for i in step.live]
            assert [h.normalized_score for h in ended] == sorted((h.normalized_score for h in ended), reverse=True)
            if step.kept:  # an hf beam: ended ones first, then live ones by summed score, none ended
                assert len(ended) + len(live) == len(step.hypotheses) and not any(h.finished for h in live)
                assert [h.score for h in live] == sorted((h.score for h in live), reverse=True)


HfSessionMachine.TestCase.settings = settings(
    max_examples=20, stateful_step_count=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestHfSessionMachine = HfSessionMachine.TestCase


def test_the_machine_reaches_hf_beams_with_an_ended_list() -> None:
    """The model the machine uses does end hypotheses early, so the invariants see ended lists."""
    session = DecodingSession(MODEL, SOURCE, Beam(3, 1.0, rule="hf"), max_len=8)
    session.run_to_end()
    assert any(step.kept for step in session.beam_history)
    with pytest.raises(transviz.InputError):
        session.step()
