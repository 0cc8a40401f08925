"""Animations: GIF and MP4 written from frames, read back with Pillow and ffmpeg themselves."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageSequence

import transviz
from transviz import cli
from transviz.core.base.errors import InputError
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Sampling
from transviz.core.teaching.animation import Timing, check_name, held, same_size, write_animation


def frames(count: int, height: int = 30, width: int = 41) -> list[np.ndarray]:
    """Distinct frames of few colours (a GIF palette holds them exactly): a bar that grows."""
    out = []
    for index in range(count):
        frame = np.full((height, width, 3), (250, 250, 250), np.uint8)
        frame[:, : 4 * (index + 1)] = (68, 1, 84)
        frame[index % height, :] = (253, 231, 37)
        out.append(frame)
    return out


def test_a_gif_holds_every_frame_exactly_and_holds_the_last(tmp_path):
    given = frames(6)
    path = write_animation(given, tmp_path / "run.gif", Timing(frame_ms=500, hold_ms=1500))
    gif = Image.open(path)
    read = [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(gif)]
    assert len(read) == 6
    for mine, theirs in zip(given, read, strict=True):
        np.testing.assert_array_equal(theirs, mine)
    durations = []
    for index in range(gif.n_frames):
        gif.seek(index)
        durations.append(gif.info["duration"])
    assert durations == [500] * 5 + [2000]
    assert gif.info.get("loop") == 0


def test_a_gif_of_screenshots_stays_close_to_them(tmp_path):
    """Smooth gradients of far more than 256 colours, as heatmaps have: each frame's own palette
    keeps every pixel near its colour."""
    rows, columns = np.mgrid[0:60, 0:80]
    given = [np.stack([rows * 4, columns * 3, np.full_like(rows, 40 * shift)], axis=-1).astype(np.uint8)
             for shift in range(3)]
    assert len(np.unique(given[0].reshape(-1, 3), axis=0)) > 4000
    gif = Image.open(write_animation(given, tmp_path / "gradient.gif"))
    for mine, frame in zip(given, ImageSequence.Iterator(gif), strict=True):
        theirs = np.asarray(frame.convert("RGB")).astype(int)
        assert np.abs(theirs - mine).max() <= 16


def test_frames_of_other_sizes_are_padded_with_their_corner_colour():
    small, large = np.zeros((2, 3, 3), np.uint8), np.full((4, 5, 3), 9, np.uint8)
    small[0, 0] = (1, 2, 3)
    padded = same_size([small, large])
    assert [f.shape for f in padded] == [(4, 5, 3), (4, 5, 3)]
    np.testing.assert_array_equal(padded[0][:2, :3], small)
    assert (padded[0][2:] == (1, 2, 3)).all() and (padded[0][:, 3:] == (1, 2, 3)).all()
    np.testing.assert_array_equal(padded[1], large)


def test_a_video_repeats_the_last_frame_for_the_hold():
    given = frames(3)
    video = list(held(given, Timing(frame_ms=400, hold_ms=1000)))
    assert len(video) == 3 + 3 and all(frame is given[-1] for frame in video[2:])
    assert len(list(held(given, Timing(frame_ms=400, hold_ms=0)))) == 3
    longest = held(given, Timing(frame_ms=20, hold_ms=600_000))  # one frame at a time: no copies
    assert sum(frame is given[-1] for frame in longest) == 1 + 30_000


@pytest.mark.process
def test_an_mp4_has_a_frame_per_step_plus_the_hold(tmp_path):
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    given = frames(4, height=31, width=45)  # odd sides: padded to even for H.264
    path = write_animation(given, tmp_path / "run.mp4", Timing(frame_ms=250, hold_ms=500))
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    assert meta["size"] == (46, 32) and meta["fps"] == pytest.approx(4.0)
    decoded = [np.frombuffer(raw, np.uint8).reshape(32, 46, 3) for raw in reader]
    assert len(decoded) == 4 + 2
    for index, theirs in enumerate(decoded[:4]):  # lossy, but each frame is nearest the one it was
        errors = [np.abs(theirs[:31, :45].astype(int) - mine).mean() for mine in given]
        assert int(np.argmin(errors)) == index


@pytest.mark.parametrize("name", ["run.png", "run", "run.gif.txt"])
def test_only_gif_and_mp4_names(name):
    with pytest.raises(InputError, match="must end in .gif or .mp4"):
        check_name(name)


@pytest.mark.parametrize("frame_ms,hold_ms", [(0, 0), (19, 0), (100, -1), (100.5, 0)])
def test_impossible_timings_are_refused(frame_ms, hold_ms):
    with pytest.raises(InputError):
        Timing(frame_ms, hold_ms)


def test_no_frames_is_an_error(tmp_path):
    with pytest.raises(InputError, match="at least one frame"):
        write_animation([], tmp_path / "x.gif")
    assert not (tmp_path / "x.gif").exists()


def test_an_excursion_puts_back_the_very_records():
    """Forced and sampled tokens survive: the records after are the records before."""
    session = DecodingSession(transviz.load_model("default"), "ich mochte ein bier", strategy=Sampling(1.5, seed=3))
    session.step()
    session.force("beer")
    before, beam, tokens = session.history, session.beam, session.output_tokens
    kinds = []
    session.events.connect(lambda event: kinds.append(event.kind))
    with session.excursion():
        session.run_to_end()
        session.rewind(0)
        session.step()
    assert session.history == before and all(a is b for a, b in zip(session.history, before, strict=True))
    assert session.beam is beam and session.output_tokens == tokens and kinds[-1] == "restore"
    session.back()  # and the session goes on from there
    assert session.position == 1 and session.history[0] is before[0]


def test_render_animate_refuses_other_names_before_it_starts(tmp_path, capsys):
    assert cli.main(["render", "ich", "--view", "grid", "--animate", "--out", str(tmp_path / "x.png")]) == 1
    assert "must end in .gif or .mp4" in capsys.readouterr().err
    assert cli.main(["render", "ich", "--view", "grid", "--animate", "--frame-ms", "5",
                     "--out", str(tmp_path / "x.gif")]) == 1
    assert "20 to 60000 ms" in capsys.readouterr().err
