"""The names of :mod:`fairlib.multires.checks.psdsf_range`, under the path the executed notebooks
cite."""

from .checks.psdsf_range import *  # noqa: F403
from .checks.psdsf_range import __all__  # noqa: F401
