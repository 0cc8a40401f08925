"""The core's messages are a template and its arguments: every error the core raises names a
template marked for lupdate (an AST scan of the sources, which finds the f-strings of an unmarked
raise), with as many arguments as the template has places; str() is the English the CLI prints."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import torch

import transviz
from transviz.cli import main
from transviz.core.base.errors import CheckpointError, ConfigError, InputError, TransvizError, reason
from transviz.core.base.messages import CONTEXT, Message, joined, translate_noop
from transviz.core.io.endings import FINISHED, RUNNING, recorded
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

ROOT = Path(__file__).resolve().parents[3]
CORE = sorted((ROOT / "transviz" / "core").rglob("*.py")) + [ROOT / "transviz" / "__init__.py"]
ERRORS = {"TransvizError", "InputError", "ConfigError", "CheckpointError"}
PLACE = re.compile(r"\{([^{}]*)\}")


def _marked(node: ast.AST) -> str | None:
    """The template of a ``translate_noop(...)`` call, or None if ``node`` is not one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "translate_noop":
        text = node.args[1] if len(node.args) == 2 else None
        return text.value if isinstance(text, ast.Constant) and isinstance(text.value, str) else ""
    return None


def _called(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) \
        else ""


def problems(sources: dict[str, str]) -> list[str]:
    """What is wrong with the messages in ``sources`` (name -> Python text): an error or a Message
    whose template is not marked (an f-string, a plain string, a sum, a .format()), a marker
    without its literal context and template, a template whose places are not {0}, {1}, ... in
    number with the arguments given."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    constants = {}  # NAME = translate_noop(...) anywhere: shared templates
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                template = _marked(node.value)
                if template:
                    constants[node.targets[0].id] = template
    found = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            where = f"{name}:{node.lineno}"
            if _called(node) == "translate_noop":
                context = node.args[0] if node.args else None
                if not (isinstance(context, ast.Constant) and context.value == CONTEXT) or not _marked(node):
                    found.append(f"{where}: translate_noop needs the literal context {CONTEXT!r} and a template")
                continue
            if _called(node) not in ERRORS | {"Message"} or not node.args:
                continue
            first = node.args[0]
            template = _marked(first)
            if template is None and isinstance(first, ast.Name) and first.id.isupper():
                template = constants.get(first.id)
                if template is None:
                    found.append(f"{where}: {first.id} is not a template marked with translate_noop")
                    continue
            if template is None:
                if not isinstance(first, (ast.Name, ast.Attribute)):  # a variable may hold a Message
                    found.append(f"{where}: {_called(node)}({ast.unparse(first)[:60]}...) is not a marked template")
                continue
            places = PLACE.findall(template)
            if any(not p.isdigit() for p in places) or sorted(set(map(int, places))) != list(range(len(set(places)))):
                found.append(f"{where}: {template!r} must number its places {{0}}, {{1}}, ... without format specs")
            elif not any(isinstance(a, ast.Starred) for a in node.args) and len(node.args) - 1 != len(set(places)):
                found.append(f"{where}: {template!r} has {len(set(places))} places, given {len(node.args) - 1}")
    return found


def test_every_message_of_the_core_names_a_marked_template_with_its_arguments():
    sources = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in CORE}
    assert not problems(sources), "\n".join(problems(sources))
    calls = [n for text in sources.values() for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)]
    assert sum(_called(c) in ERRORS for c in calls) > 100  # the scan saw the core's errors


def test_the_scan_finds_unmarked_and_miscounted_messages():
    """The check above can fail: each of these wrong ways (the first two as the core raised its
    errors before) is found, and the right way is not."""
    wrong = {
        "fstring.py": 'raise ConfigError(f"lr must be positive, got {lr!r}")',
        "plain.py": 'raise InputError("the sentence is empty: type at least one word")',
        "sum.py": 'raise CheckpointError(path.name + " is broken")',
        "format.py": 'raise InputError("line {0}".format(number))',
        "context.py": 'raise InputError(translate_noop("Other", "a sentence"))',
        "count.py": 'raise InputError(translate_noop("CoreMessages", "line {0}: byte {1}"), number)',
        "spec.py": 'x = Message(translate_noop("CoreMessages", "{0:,} lines"), n)',
        "constant.py": 'raise ConfigError(UNMARKED, name)',
        "fine.py": 'A = translate_noop("CoreMessages", "{0} and {1}")\n'
                   'raise ConfigError(A, 1, 2)\nraise InputError(reason)\n'
                   'raise InputError(translate_noop("CoreMessages", "line {0}"), number)',
    }
    found = problems(wrong)
    assert len(found) == 8, found
    assert {problem.split(":")[0] for problem in found} == set(wrong) - {"fine.py"}


def test_a_message_is_its_english_sentence():
    nested = Message(translate_noop("CoreMessages", "training.{0}: {1}"), "message",
                     Message(FINISHED, 1200))
    assert str(nested) == "training.message: finished 1200 steps"
    assert str(Message("a plain {sentence}")) == "a plain {sentence}"  # no arguments: as written
    assert Message.from_dict(nested.to_dict()) == nested
    with pytest.raises(ValueError):
        Message.from_dict({"template": "x {0}", "args": [None]})
    assert str(joined([Message(translate_noop("CoreMessages", "missing tensor {0}"), "a"), "b", "c"])) == "missing " \
        "tensor a; b; c"


def test_an_error_carries_its_message_and_reads_as_english():
    with pytest.raises(ConfigError) as caught:
        transviz.ModelConfig(9, 9, d_model=128, n_heads=3)
    error = caught.value
    assert str(error) == "d_model (128) must be divisible by n_heads (3): each head gets d_model / n_heads dimensions"
    assert error.message.args == (128, 3) and error.args == (str(error),)
    assert error.message.template.startswith("d_model ({0}) must be divisible by n_heads ({1})")
    assert reason(error) is error.message and reason(KeyError("config")) == "'config'"
    assert str(TransvizError(Message(FINISHED, 3))) == "finished 3 steps"
    with pytest.raises(TypeError):
        InputError(Message(FINISHED, 3), 4)


def test_a_checkpoint_keeps_how_its_run_ended_as_a_message():
    facts = {"status": "finished", "steps": 1200, "message": "finished 1200 steps"}  # as the shipped models have it
    assert recorded(facts) == Message(FINISHED, 1200)
    running = {"status": "running", "steps": 200, "train_config": {"steps": 1200},
               "message": "checkpoint at step 200 of 1200"}
    assert recorded(running) == Message(RUNNING, 200, 1200)
    assert recorded({**facts, "message": "finished, differently worded"}) == "finished, differently worded"
    kept = Message(RUNNING, 5, 9)
    assert recorded({**facts, "message": str(kept), "message_parts": kept.to_dict()}) == kept


def test_the_cli_prints_the_english_sentence(tmp_path, capsys):
    torch.manual_seed(0)
    vocab = Vocab("a b c d".split())
    config = transviz.ModelConfig(len(vocab), len(vocab), d_model=16, n_heads=2, n_encoder_layers=1,
                                  n_decoder_layers=1, d_ff=32)
    model = transviz.Model(Transformer(config), vocab, vocab, {"task": "unit"})
    good = transviz.save_model(model, tmp_path / "good.safetensors")
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CheckpointError) as caught:
        transviz.load_model(cut)
    assert main(["info", str(cut)]) == 1
    printed = capsys.readouterr().err.strip()
    assert printed == f"transviz: {caught.value}"
    assert re.fullmatch(r"transviz: cut\.safetensors: the file is truncated or damaged: it ends after [\d,]+ bytes; "
                        r"a complete file holds [\d,]+ bytes", printed)
    assert main(["info", str(good)]) == 0
    assert "source vocabulary: " in capsys.readouterr().out
