"""Where to train: CUDA if there is a GPU, else Apple's MPS, else the CPU; or a named device."""
from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from .errors import ConfigError


@dataclass(frozen=True)
class DeviceInfo:
    """A device torch can use here, as a menu shows it."""

    name: str  # what to pass back: "cpu", "cuda:0", "mps"
    description: str  # "NVIDIA H200, 139.8 GB", "CPU, 2 threads", ...


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def available_devices() -> list[DeviceInfo]:
    """Every usable device, the one ``auto`` picks first."""
    found = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            found.append(DeviceInfo(f"cuda:{i}", f"{props.name}, {props.total_memory / 1e9:.1f} GB"))
    if _mps_available():
        found.append(DeviceInfo("mps", "Apple GPU (Metal)"))
    found.append(DeviceInfo("cpu", f"CPU, {torch.get_num_threads()} threads"))
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
        raise ConfigError(f"unknown device {spec!r}: use auto, cpu, cuda, cuda:N or mps")
    if spec not in found:
        raise ConfigError(f"device {spec} is not available on this machine (found: {', '.join(found)})")
    return torch.device(spec)
