"""A decoding run as an animation for slides: one frame per step, then a hold on the last one.

GIF is written with Pillow (every frame gets its own 256-colour palette: heatmaps keep their
gradients). MP4 (H.264) is encoded by ffmpeg through imageio-ffmpeg, which finds ffmpeg: its own
binary when installed from PyPI, else one installed on the computer (the classroom bundle leaves
ffmpeg's 170 MB out). Frames are RGB arrays of one size; this module knows nothing of Qt.
"""
from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import numpy as np

from ..base.errors import InputError
from ..base.files import write_atomically
from ..base.messages import translate_noop

FORMATS = (".gif", ".mp4")


@dataclass(frozen=True)
class Timing:
    """How long each frame shows, and how much longer the last one stays."""

    frame_ms: int = 800
    hold_ms: int = 2400

    def __post_init__(self) -> None:
        if not (isinstance(self.frame_ms, int) and 20 <= self.frame_ms <= 60_000):
            raise InputError(translate_noop("CoreMessages", "a frame must show for 20 to 60000 ms, not {0}"),
                             repr(self.frame_ms))
        if not (isinstance(self.hold_ms, int) and 0 <= self.hold_ms <= 600_000):
            raise InputError(translate_noop("CoreMessages", "the last frame's hold must be 0 to 600000 ms, not {0}"),
                             repr(self.hold_ms))


def check_name(path: str | os.PathLike[str]) -> str:
    """The format ``path`` asks for (".gif" or ".mp4"); InputError for any other name."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise InputError(translate_noop("CoreMessages", "cannot write an animation to {0}: the file name must end in "
                                                        ".gif or .mp4"), Path(path).name)
    return suffix


def same_size(frames: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``frames`` (H, W, 3 uint8) padded at the right and bottom to the largest, with each frame's
    top-left colour (a window may grow a little while a run is stepped through)."""
    if not frames:
        raise InputError(translate_noop("CoreMessages", "an animation needs at least one frame"))
    height = max(frame.shape[0] for frame in frames)
    width = max(frame.shape[1] for frame in frames)
    padded = []
    for frame in frames:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"a frame must be (height, width, 3) uint8, got {frame.shape} {frame.dtype}")
        canvas = np.empty((height, width, 3), np.uint8)
        canvas[:] = frame[0, 0]
        canvas[: frame.shape[0], : frame.shape[1]] = frame
        padded.append(canvas)
    return padded


def write_animation(frames: Sequence[np.ndarray], path: str | os.PathLike[str], timing: Timing = Timing()) -> Path:
    """Write ``frames`` to ``path`` as GIF or MP4 (by its suffix), atomically."""
    suffix = check_name(path)
    frames = same_size(frames)
    data = _gif(frames, timing) if suffix == ".gif" else _mp4(frames, timing)
    return write_atomically(path, data)


def _gif(frames: Sequence[np.ndarray], timing: Timing) -> bytes:
    from PIL import Image

    pictures = [Image.fromarray(frame, "RGB").quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
                for frame in frames]
    durations = [timing.frame_ms] * len(frames)
    durations[-1] += timing.hold_ms
    out = BytesIO()
    # loop=0: round and round on a slide; Pillow merges equal neighbours (their durations add up)
    pictures[0].save(out, "GIF", save_all=True, append_images=pictures[1:], duration=durations, loop=0)
    return out.getvalue()


def held(frames: Sequence[np.ndarray], timing: Timing) -> Iterator[np.ndarray]:
    """The frames of a constant-rate video: the last one repeated for the hold, as the same array
    (a ten-minute hold at 100 frames/s is 60,000 frames: copies would fill the memory)."""
    yield from frames
    for _ in range(math.ceil(timing.hold_ms / timing.frame_ms)):
        yield frames[-1]


def ffmpeg() -> str:
    """The ffmpeg that MP4s are encoded with; InputError saying what to install when there is none."""
    try:
        import imageio_ffmpeg
    except ImportError:
        raise InputError(translate_noop("CoreMessages", "MP4 needs imageio-ffmpeg: pip install 'transviz[video]' "
                                                        "(or write a .gif, which needs nothing more)")) from None
    try:
        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except RuntimeError:
        raise InputError(translate_noop("CoreMessages", "MP4 needs ffmpeg, and this computer has none: install "
                                                        "ffmpeg (e.g. apt install ffmpeg), or write a .gif, which "
                                                        "needs nothing more")) from None


def _mp4(frames: Sequence[np.ndarray], timing: Timing) -> bytes:
    ffmpeg()  # a clear message when there is none
    import imageio_ffmpeg

    frames = [_even(frame) for frame in frames]
    height, width = frames[0].shape[:2]
    with tempfile.TemporaryDirectory(prefix="transviz-mp4-") as folder:
        out = Path(folder) / "run.mp4"
        # yuv420p H.264 plays everywhere (PowerPoint, browsers); it needs even sides
        writer = imageio_ffmpeg.write_frames(str(out), (width, height), fps=1000 / timing.frame_ms,
                                             codec="libx264", pix_fmt_out="yuv420p", macro_block_size=2,
                                             ffmpeg_log_level="error", output_params=["-movflags", "+faststart"])
        try:
            writer.send(None)
            for frame in held(frames, timing):
                writer.send(frame)  # _even made it contiguous
        except (OSError, RuntimeError) as exc:
            message = translate_noop("CoreMessages", "ffmpeg could not write the MP4: {0}")
            raise InputError(message, str(exc)) from None
        finally:
            writer.close()
        return out.read_bytes()


def _even(frame: np.ndarray) -> np.ndarray:
    """``frame`` with a last row and column repeated where its sides are odd."""
    height, width = frame.shape[:2]
    return np.pad(frame, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")
