"""The program's start: ``import transviz`` loads nothing heavy, and the program's entry holds full
garbage collections back while it starts and lets them run again before a command's work (each in
a fresh process: holding back or freezing would otherwise change this test process)."""
import importlib
import subprocess
import sys
import textwrap

import pytest

import transviz
from transviz.cli import build_parser, opens_window
from transviz.core.decoding import inference, interventions
from transviz.core.io import loading
from transviz.core.model import bundle


def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.process
def test_importing_the_package_loads_neither_torch_nor_numpy():
    assert run_python("""
        import sys
        import transviz
        print(sorted({"torch", "numpy", "PySide6"} & set(sys.modules)))
        """) == "[]"


def test_every_public_name_is_its_defining_modules_object():
    for name in transviz.__all__:
        value = getattr(transviz, name)
        assert getattr(importlib.import_module(value.__module__), value.__name__) is value, name
        assert name in dir(transviz)
    assert transviz.decode is inference.decode and transviz.Model is bundle.Model
    assert transviz.load_model is loading.load_model and transviz.AblateHead is interventions.AblateHead
    with pytest.raises(AttributeError, match="no attribute 'decoder'"):
        transviz.decoder  # noqa: B018


@pytest.mark.process
def test_a_command_computes_with_full_collections_back_and_failing_leaves_them_on():
    """`transviz decode`: no full collection while the program starts (torch's import included),
    full collections back when it decodes, the start's objects frozen out of their reach; and the
    collector as it was after a command that failed."""
    out = run_python("""
        import gc, sys
        from transviz import cli
        from transviz.commands import decode

        assert "torch" not in sys.modules
        before = gc.get_threshold()
        seen = []
        def probe(args):
            seen.append((gc.get_threshold() == before, gc.get_freeze_count() > 0))
            return real(args)
        real, decode.run = decode.run, probe
        full = []
        gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2 and full.append(len(seen)))
        code = cli.launch(["decode", "--model", "default", "ich mochte ein bier"])
        print("first:", code, seen, 0 in full, gc.get_threshold() == before)
        print("second:", cli.launch(["decode", "--model", "no-such-model", "ich"]), gc.get_threshold() == before)
        """).splitlines()
    out = [line for line in out if line.startswith(("first:", "second:"))]
    assert out[0] == "first: 0 [(True, True)] False True"  # no full collection before the command ran
    assert out[1] == "second: 1 True"


@pytest.mark.parametrize(("argv", "window"), [
    ([], True), (["gui"], True), (["gui", "default"], True), (["lesson", "a.toml"], True),
    (["lesson", "a.toml", "--check"], False), (["lesson", "a.toml", "--export", ""], False),
    (["--self-test"], False), (["decode", "ich"], False), (["train", "--task", "reverse"], False),
])
def test_only_the_window_keeps_the_pause_past_the_command_line(argv, window):
    assert opens_window(build_parser().parse_args(argv)) is window
