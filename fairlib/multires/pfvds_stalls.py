"""The names of :mod:`fairlib.multires.pfvds.stalls`, under the path the executed notebooks cite."""

from .pfvds.stalls import *  # noqa: F403
from .pfvds.stalls import __all__  # noqa: F401
