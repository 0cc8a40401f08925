"""The classroom bundle, built from build.spec with PyInstaller and run frozen, with no Python and
no source tree in reach. Marked ``packaging`` (the build takes minutes): ``pytest -m packaging``."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import transviz
from packaging_models import tiny_model
from transviz.bench.packaging import BUNDLE_VARIABLE
from transviz.selftest import SEED_SENTENCE

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]
BUDGET_MB = 600
# Libraries the bundle takes from the system instead of carrying them: the C library, the
# OpenGL dispatch libraries (they must match the machine's driver) and libxcb itself. The
# manual's Getting started page names the packages that provide them.
SYSTEM_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "ld-linux-x86-64.so.2", "libGL.so.1", "libEGL.so.1", "libOpenGL.so.0", "libGLX.so.0", "libGLdispatch.so.0",
    "libxcb.so.1",
}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """The ``dist/transviz`` folder built from this tree ($TRANSVIZ_BUNDLE: one built already)."""
    if os.environ.get(BUNDLE_VARIABLE):
        return Path(os.environ[BUNDLE_VARIABLE]).resolve()  # the tests run it from other folders
    work = tmp_path_factory.mktemp("pyinstaller")
    result = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath", str(work / "dist"),
         "--workpath", str(work / "build"), str(ROOT / "build.spec")],
        cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, "the build failed (is the build extra installed?)\n" + result.stderr[-6000:]
    return work / "dist" / "transviz"


def frozen(bundle: Path, home: Path, *args: str, **env_vars: str) -> subprocess.CompletedProcess[str]:
    """Run the frozen app as a classroom machine would: no Python, no source tree, a bare environment."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", **env_vars}
    return subprocess.run([str(bundle / "transviz"), *args], env=env, cwd=home, capture_output=True, text=True,
                          timeout=300)


def folder_megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def test_the_frozen_self_test_passes_and_exits_0_every_time(bundle, tmp_path, tab_names):
    shipped = sorted(p.stem for p in (ROOT / "resources" / "models").glob("*.safetensors"))
    for attempt in range(3):
        report = tmp_path / f"report{attempt}.txt"
        result = frozen(bundle, tmp_path, "--self-test", "--report", str(report))
        assert result.returncode == 0, result.stdout + result.stderr
        assert report.read_text(encoding="utf-8") == result.stdout
    lines = result.stdout.splitlines()
    assert any("(frozen bundle)" in line and "platform offscreen" in line for line in lines)
    resources = bundle / "_internal" / "transviz" / "resources"
    assert f"resources: {resources} ({len(shipped)} models, " in result.stdout
    for name in shipped:
        assert any(line.startswith(f"ok    model {name}: ") for line in lines), name
    if "default" in shipped:
        assert any(line.startswith(f'ok    decode: "{SEED_SENTENCE}" -> ') for line in lines)
    else:
        assert "ok    shipped models: none installed; model checks skipped" in lines
    assert [line.split(": ")[0].removeprefix("ok    tab ") for line in lines if " tab " in line] == tab_names
    manual = resources / "manual"
    assert any(line.startswith("ok    manual: ") and f"pages found (English, Chinese, one per tab) in {manual}" in line
               for line in lines)  # what Help > Manual and F1 open, offline
    assert lines[-1].startswith("self-test passed")


def test_a_frozen_decode_matches_the_python_one(bundle, tmp_path):
    """The pruned, stripped torch computes what the installed one does."""
    model = tiny_model(seed=1)
    path = transviz.save_model(model, tmp_path / "tiny.safetensors")
    result = frozen(bundle, tmp_path, "decode", SEED_SENTENCE, "--model", str(path), "--json")
    assert result.returncode == 0, result.stderr
    got, want = json.loads(result.stdout), transviz.decode(model, SEED_SENTENCE)
    assert got["target_tokens"] == want.target_tokens and got["output_tokens"] == want.output_tokens
    for name in ("encoder_self_attention", "decoder_self_attention", "cross_attention", "output_probabilities"):
        np.testing.assert_allclose(np.array(got[name], dtype=np.float32), getattr(want, name), atol=1e-5, err_msg=name)


def test_a_user_error_is_one_line_and_exit_1(bundle, tmp_path):
    result = frozen(bundle, tmp_path, "info", "no-such-model")
    assert result.returncode == 1
    assert result.stderr.startswith("transviz: no checkpoint file or shipped model called 'no-such-model'")
    assert len(result.stderr.splitlines()) == 1


def test_a_frozen_animation_is_a_gif_and_an_mp4_with_the_computers_ffmpeg(bundle, tmp_path):
    from PIL import Image

    animate = ("render", SEED_SENTENCE, "--view", "grid", "--step", "2", "--animate", "--size", "400x300", "--out")
    result = frozen(bundle, tmp_path, *animate, str(tmp_path / "run.gif"))
    assert result.returncode == 0, result.stderr
    assert Image.open(tmp_path / "run.gif").n_frames == 3
    if shutil.which("ffmpeg", path="/usr/bin:/bin") is None:  # the bundle carries no ffmpeg of its own
        result = frozen(bundle, tmp_path, *animate, str(tmp_path / "run.mp4"))
        assert result.returncode == 1 and "MP4 needs ffmpeg" in result.stderr
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")  # the test extra's: an ffmpeg "on the computer"
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    result = frozen(bundle, tmp_path, *animate, str(tmp_path / "run.mp4"), IMAGEIO_FFMPEG_EXE=ffmpeg)
    assert result.returncode == 0, result.stderr
    assert sum(1 for _ in imageio_ffmpeg.read_frames(str(tmp_path / "run.mp4"))) - 1 == 3 + 3  # meta, frames, hold


@pytest.mark.skipif(torch.version.cuda is not None, reason="the budget is the CPU bundle's; CUDA adds GBs")
def test_the_folder_fits_the_budget(bundle):
    size = folder_megabytes(bundle)
    print(f"bundle: {size:.0f} MB")
    assert size <= BUDGET_MB


def test_what_the_app_never_uses_is_left_out(bundle):
    internal = bundle / "_internal"
    assert not (internal / "torch" / "test").exists()
    assert [p.name for p in (internal / "torch" / "bin").iterdir()] == ["torch_shm_manager"]
    assert not list((internal / "torch" / "lib").glob("*test*"))
    assert not list(internal.glob("libssl*")) and not list(internal.glob("libcrypto*"))  # never online
    for package in ("lxml", "hypothesis", "pytest", "_pytest", "tkinter", "setuptools", "requests", "certifi"):
        assert not (internal / package).exists(), package
    assert not [p for p in internal.rglob("*") if p.is_symlink() and not p.exists()], "dangling links"
    assert not list(internal.glob("imageio_ffmpeg/binaries/ffmpeg*"))
    assert not list(internal.glob("PIL/_webp*")) and not list(internal.glob("pillow.libs/libavif*"))
    qt = internal / "PySide6" / "Qt"
    assert {p.name for p in (qt / "translations").iterdir()} == {
        "qt_en.qm", "qt_zh_CN.qm", "qtbase_en.qm", "qtbase_zh_CN.qm"}
    assert {p.name for p in (qt / "plugins" / "platforms").iterdir()} == {"libqxcb.so", "libqoffscreen.so"}
    assert not list(qt.glob("lib/libQt6Network*")) and not list(qt.glob("lib/libQt6Wayland*"))
    for package in ("yaml", "_yaml", "sqlite3"):
        assert not list(internal.glob(f"{package}*")) and not list(internal.glob(f"**/{package}.*.so")), package
    # torch's Python is compiled only, but for the modules that read their source as torch loads
    torch_files = internal / "torch"
    assert not (torch_files / "nn" / "modules" / "linear.py").exists()
    assert (torch_files / "_dynamo" / "config.py").is_file() and (torch_files / "nn" / "functional.py").is_file()


def test_torch_and_python_libraries_are_stripped(bundle):
    installed = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    shipped = bundle / "_internal" / "torch" / "lib" / "libtorch_cpu.so"
    assert shipped.stat().st_size < 0.85 * installed.stat().st_size


def test_the_modules_left_out_are_not_in_the_archive_and_torch_keeps_its_own(bundle):
    from PyInstaller.archive.readers import CArchiveReader

    modules = set(CArchiveReader(str(bundle / "transviz")).open_embedded_archive("PYZ.pyz").toc)
    for left_out in ("hypothesis", "pytest", "lxml", "tkinter", "setuptools"):
        assert not {m for m in modules if m == left_out or m.startswith(left_out + ".")}, left_out
    assert {"torch.distributed", "torch._dynamo", "transviz.selftest", "transviz.commands.decode"} <= modules


@pytest.mark.skipif(not shutil.which("ldd"), reason="reads shared-library dependencies with ldd (Linux)")
def test_the_bundle_needs_only_basic_system_libraries(bundle):
    """Every library the frozen app links is in the bundle, except the few every desktop has."""
    internal = bundle / "_internal"
    env = {**os.environ, "LD_LIBRARY_PATH": str(internal)}  # what the bootloader sets
    binaries = [bundle / "transviz"] + [p for p in internal.rglob("*.so*") if p.is_file() and not p.is_symlink()]
    from_system, missing = set(), set()
    for binary in binaries:
        for line in subprocess.run(["ldd", str(binary)], env=env, capture_output=True, text=True).stdout.splitlines():
            name, _, where = line.strip().partition(" => ")
            if "not found" in where:
                missing.add(f"{name} (for {binary.relative_to(bundle)})")
            elif where.startswith("/") and not where.startswith(str(bundle)):
                from_system.add(name)
    assert not missing
    assert from_system <= SYSTEM_LIBRARIES, from_system - SYSTEM_LIBRARIES


def test_the_cold_start_figure_times_the_frozen_window(bundle):
    from transviz.bench.packaging import launch_to_window

    assert launch_to_window(bundle / "transviz") > 0  # the figure's value is reported by `transviz bench`
