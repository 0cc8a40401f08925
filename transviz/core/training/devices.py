"""Where to train: CUDA if there is a GPU, else Apple's MPS, else the CPU; or a named device."""
from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from ..base.errors import ConfigError
from ..base.messages import Message, translate_noop


@dataclass(frozen=True)
class DeviceInfo:
    """A device torch can use here, as a menu shows it."""

    name: str  # what to pass back: "cpu", "cuda:0", "mps"
    description: Message  # "NVIDIA H200, 139.8 GB", "CPU, 2 threads", ...


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def available_devices() -> list[DeviceInfo]:
    """Every usable device, the one ``auto`` picks first."""
    found = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            memory = f"{props.total_memory / 1e9:.1f}"
            description = Message(translate_noop("CoreMessages", "{0}, {1} GB"), props.name, memory)
            found.append(DeviceInfo(f"cuda:{i}", description))
    if _mps_available():
        found.append(DeviceInfo("mps", Message(translate_noop("CoreMessages", "Apple GPU (Metal)"))))
    threads = torch.get_num_threads()
    found.append(DeviceInfo("cpu", Message(translate_noop("CoreMessages", "CPU, {0} threads"), threads)))
    return found


def resolve_device(spec: str = "auto") -> torch.device:
    """``auto`` / ``cpu`` / ``cuda`` / ``cuda:N`` / ``mps`` -> a usable device; ConfigError if it is not here."""
    spec = spec.strip().lower()
    found = [d.name for d in available_devices()]
    if spec == "auto":
        return torch.device(found[0])
    if spec == "cuda":
        spec = "cuda:0"
    if spec not in ("cpu", "mps") and not re.fullmatch(r"cuda:\d+", spec):
        raise ConfigError(
            translate_noop("CoreMessages", "unknown device {0}: use auto, cpu, cuda, cuda:N or mps"), repr(spec))
    if spec not in found:
        raise ConfigError(
            translate_noop("CoreMessages", "device {0} is not available on this machine (found: {1})"),
            spec, ", ".join(found))
    return torch.device(spec)
