"""The error fairlib raises on malformed input, in a module of its own that imports nothing.

:class:`InvalidInputError` is used through :mod:`fairlib._validate`, which re-exports it; it lives
here so that modules every kernel depends on (:mod:`fairlib._jit`, read at import for
``FAIRLIB_INTERPRET_AT_MOST``) can raise it without importing :mod:`fairlib._validate`, whose
source would then enter every kernel's cache key (:func:`fairlib.kernel_keys`).
"""

from __future__ import annotations

__all__ = ["InvalidInputError"]


class InvalidInputError(ValueError):
    """Raised on malformed input; the message names the argument, index and value."""


# its public home: messages, tracebacks and pickles name fairlib._validate.InvalidInputError
InvalidInputError.__module__ = "fairlib._validate"
