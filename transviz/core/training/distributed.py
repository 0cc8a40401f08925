"""Training across processes started by ``torchrun``: which process this is, its device, and the
few collective steps the trainer needs. Outside torchrun everything here is a no-op.

torchrun tells each process its place in the environment (``WORLD_SIZE``, ``RANK``, ``LOCAL_RANK``,
``MASTER_ADDR``, ``MASTER_PORT``). GPUs talk over NCCL, one GPU per process (its local rank);
CPUs over gloo. Rank 0 is the leader: it alone prints, validates and writes files.

Typical use::

    world = start("auto")          # joins the process group when run under torchrun
    try:
        Trainer(model, dataset, config, world=world).run()
    finally:
        stop(world)
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from ..base.errors import ConfigError
from ..base.messages import translate_noop
from .devices import resolve_device


@dataclass(frozen=True)
class World:
    """This process's place among ``size`` training processes (one process: rank 0 of 1)."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0  # on this machine; picks the GPU
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))  # meaningful when distributed

    @property
    def distributed(self) -> bool:
        return self.size > 1

    @property
    def leader(self) -> bool:
        """The one process that prints, validates, snapshots and writes files."""
        return self.rank == 0

    def share(self, indices: Sequence[int]) -> list[int]:
        """This process's rows of a global batch: every ``size``-th from its rank. Batches are sorted
        by length in pools, so striding gives every process a similar mix of lengths."""
        return list(indices[self.rank :: self.size])

    def sum(self, values: torch.Tensor) -> torch.Tensor:
        """Element-wise sum of ``values`` over all processes (the tensor itself when alone)."""
        if self.distributed:
            dist.all_reduce(values, op=dist.ReduceOp.SUM)
        return values

    def any(self, flag: bool) -> bool:
        """True on every process if it is True on any: a stop asked of one stops all at the same step."""
        if not self.distributed:
            return flag
        value = torch.tensor([int(flag)], device=self.device)
        dist.all_reduce(value, op=dist.ReduceOp.MAX)
        return bool(value.item())

    def leader_says(self, flag: bool) -> bool:
        """The leader's ``flag`` on every process (what the others pass is ignored)."""
        if not self.distributed:
            return flag
        value = torch.tensor([int(flag)], device=self.device)
        dist.broadcast(value, src=0)
        return bool(value.item())

    def wait_for_all(self) -> None:
        """Return when every process got here."""
        if self.distributed:
            dist.barrier()


ALONE = World()


def from_environment(env: Mapping[str, str] | None = None) -> World:
    """Rank, world size and local rank as torchrun set them; :data:`ALONE` outside torchrun."""
    env = os.environ if env is None else env
    size = int(env.get("WORLD_SIZE", "1"))
    if size <= 1:
        return ALONE
    return World(int(env["RANK"]), size, int(env.get("LOCAL_RANK", "0")))


def device_for(spec: str, local_rank: int) -> torch.device:
    """The device of the process of ``local_rank`` for ``--device spec``: its own GPU under auto or
    cuda, else the CPU. A numbered GPU or MPS cannot be shared out among processes."""
    spec = spec.strip().lower()
    if spec == "cpu":
        return torch.device("cpu")
    if spec == "auto" and not torch.cuda.is_available():
        return torch.device("cpu")
    if spec in ("auto", "cuda"):
        resolve_device("cuda")  # ConfigError when there is no GPU
        if local_rank >= torch.cuda.device_count():
            raise ConfigError(translate_noop(
                "CoreMessages", "process {0} of this machine has no GPU of its own (found {1})"),
                local_rank, torch.cuda.device_count())
        return torch.device("cuda", local_rank)
    raise ConfigError(translate_noop(
        "CoreMessages", "under torchrun use --device auto, cuda or cpu: each process takes the GPU of its local rank"))


def start(spec: str = "auto", env: Mapping[str, str] | None = None) -> World:
    """Join the process group when run under torchrun (NCCL for GPUs, gloo for CPUs); :data:`ALONE` otherwise."""
    world = from_environment(env)
    if not world.distributed:
        return ALONE
    device = device_for(spec, world.local_rank)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", rank=world.rank, world_size=world.size)
    else:
        dist.init_process_group("gloo", rank=world.rank, world_size=world.size)
    return World(world.rank, world.size, world.local_rank, device)


def stop(world: World) -> None:
    """Leave the process group that :func:`start` joined."""
    if world.distributed and dist.is_initialized():
        dist.destroy_process_group()
