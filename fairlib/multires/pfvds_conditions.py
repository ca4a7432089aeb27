"""The names of :mod:`fairlib.multires.pfvds.conditions`, under the path the executed notebooks
cite."""

from .pfvds.conditions import *  # noqa: F403
from .pfvds.conditions import __all__  # noqa: F401
