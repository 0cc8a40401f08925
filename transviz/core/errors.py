"""Exceptions a user can cause. Each carries a plain-language message the GUI shows
as is and the CLI prints as one line."""
from __future__ import annotations


class TransvizError(Exception):
    """Base class of every error caused by user input, files or settings."""


class ConfigError(TransvizError, ValueError):
    """A model or training configuration that cannot work."""


class InputError(TransvizError, ValueError):
    """A sentence, token or tensor the model cannot take."""


class CheckpointError(TransvizError):
    """A file that is not a readable transviz checkpoint."""
