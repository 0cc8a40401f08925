"""The Qt-free workspace: one session per change, signals in an order views can rely on, the
session's own copy of the model, errors kept for the views to show."""
from __future__ import annotations

import pytest
import torch

import transviz
from transviz.core.base.errors import InputError
from transviz.core.data.tasks import task_examples
from transviz.core.decoding.strategies import Beam, Greedy
from transviz.core.teaching.workspace import Workspace


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def recorded(workspace: Workspace) -> list[tuple[str, object]]:
    """What the workspace emits, and which model its session decodes at that moment."""
    events: list[tuple[str, object]] = []
    workspace.model_changed.connect(lambda m: events.append(("model", workspace.session)))
    workspace.session_changed.connect(lambda s: events.append(("session", s)))
    workspace.session_moved.connect(lambda e: events.append(("moved", e.kind)))
    return events


def test_a_new_model_opens_one_session_of_its_first_example(model):
    workspace = Workspace()
    events = recorded(workspace)
    workspace.set_model(model, "default")
    first = task_examples("toy-de-en")[0]
    session = workspace.session
    assert session is not None and session.source == first.source and workspace.reference == first.target
    assert [kind for kind, _ in events] == ["model", "session"]  # one session, after the model
    assert events[0][1] is session  # views told of the model already see its session
    assert session.model is workspace.decoding_model and workspace.model_source == "default"


def test_a_remembered_sentence_is_opened_instead_of_the_example(model):
    workspace = Workspace()
    events = recorded(workspace)
    workspace.set_model(model, sentence="ein bier")
    assert workspace.session.source == "ein bier" and workspace.reference is None
    assert [kind for kind, _ in events] == ["model", "session"]


def test_an_unreadable_sentence_leaves_no_session_and_says_why(model):
    workspace = Workspace()
    workspace.set_model(model)
    events = recorded(workspace)
    with pytest.raises(InputError):
        workspace.open("   ")
    assert workspace.session is None and isinstance(workspace.error, InputError)
    assert events == [("session", None)]
    workspace.open("ein bier")
    assert workspace.error is None and workspace.session.source == "ein bier"


def test_no_model_means_no_session(model):
    workspace = Workspace()
    workspace.set_model(model)
    workspace.set_model(None)
    assert workspace.session is None and workspace.decoding_model is None and workspace.error is not None


def test_the_session_moves_are_forwarded_only_from_the_current_session(model):
    workspace = Workspace()
    workspace.set_model(model)
    old = workspace.session
    events = recorded(workspace)
    old.step()
    workspace.open("ein bier")
    old.step()  # the old session is no longer the workspace's: its moves are not forwarded
    workspace.session.step()
    assert [kind for kind, _ in events] == ["moved", "session", "moved"]


def test_the_session_decodes_its_own_copy_of_the_model(model):
    workspace = Workspace()
    workspace.set_model(model)
    before = workspace.session.step().probability
    copy = workspace.decoding_model
    assert copy.net is not model.net and not copy.net.training
    assert all(not p.requires_grad for p in copy.net.parameters())
    with torch.no_grad():
        for p in model.net.parameters():  # another view trains the original: the session's copy is unchanged
            p.add_(1.0)
    try:
        workspace.session.back()
        assert workspace.session.step().probability == before
    finally:
        with torch.no_grad():
            for p in model.net.parameters():
                p.sub_(1.0)


def test_the_strategy_applies_to_the_session_but_not_to_teacher_forcing(model):
    workspace = Workspace()
    workspace.set_model(model)
    workspace.set_strategy(Beam(width=3))
    assert workspace.session.strategy == Beam(width=3)
    workspace.open(workspace.sentence, workspace.reference, teacher_forcing=True)
    assert workspace.session.teacher_forcing and workspace.session.strategy == Greedy()
    workspace.set_strategy(Greedy())  # no error: teacher forcing keeps feeding the reference
    workspace.open(workspace.sentence)
    assert workspace.session.strategy == Greedy() and workspace.strategy == Greedy()


def test_interventions_apply_to_the_session_and_to_later_sentences_until_the_model_changes(model):
    from transviz import AblateHead

    workspace = Workspace()
    workspace.set_model(model, "default")
    events = recorded(workspace)
    off = (AblateHead("cross", 1, 2), AblateHead("cross", 2, 1, "uniform"))
    workspace.set_interventions(off)
    assert workspace.session is not None and workspace.session.interventions == off
    assert [kind for kind, _ in events] == ["moved"] and events[0][1] == "interventions"
    session = workspace.open("du bist mein freund")
    expected = transviz.decode(model, "du bist mein freund", interventions=off)
    session.run_to_end()
    assert session.interventions == off and session.trace().translation == expected.translation
    with pytest.raises(InputError, match="no layer 7"):
        workspace.set_interventions((AblateHead("cross", 7, 0),))
    assert workspace.interventions == off and session.interventions == off  # nothing changed
    workspace.set_model(model, "default")
    assert workspace.interventions == () and workspace.session is not None and workspace.session.interventions == ()
