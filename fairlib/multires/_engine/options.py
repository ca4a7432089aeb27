"""The options of one method of a multi-method mechanism (``pfvds``, ``psdsf``, ``drfh``, ``tsf``):
a small frozen dataclass per method, built from the ``options`` mapping its front door takes
(scipy.optimize's ``minimize(..., method=..., options=...)`` pattern).

A method's options are its own: a name another method takes is refused for this one, naming the
method and the options it accepts, so an option that would be silently ignored never is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from ..._validate import (
    MAX_ITERATIONS,
    InvalidInputError,
    _short,
    as_count,
    as_number,
    as_tolerance,
)


def option_name(name: str) -> str:
    """How an error names the option ``name``: ``options['name']``.

    Parameters
    ----------
    name : str
        The option's name.

    Returns
    -------
    str
        ``options['name']``.
    """
    return f"options[{name!r}]"


@dataclass(frozen=True)
class MethodOptions:
    """Base of the per-method option types: :meth:`of` builds one from a front door's ``options``
    mapping.

    A subclass declares its options as fields with their defaults and checks them in
    ``__post_init__`` (:meth:`_count`, :meth:`_number`), naming each as ``options['name']``."""

    @classmethod
    def accepted(cls) -> tuple[str, ...]:
        """The names of the method's options, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, options, method: str):
        """The method's options from ``options`` (a mapping of option name to value, or None: every
        default).

        Parameters
        ----------
        options : Mapping or None
            The caller's options of ``method``.
        method : str
            The method's name, for the refusals.

        Returns
        -------
        MethodOptions
            An instance of ``cls`` with the given options and the defaults of the others.

        Raises
        ------
        InvalidInputError
            ``options`` is not a mapping, names an option ``method`` does not take (the refusal
            lists those it does), or gives an option a bad value.
        """
        accepted = cls.accepted()
        listed = ", ".join(accepted) if accepted else "none"
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise InvalidInputError(
                f"options = {_short(options)}: expected a mapping of method={method!r}'s options "
                f"({listed}) or None"
            )
        for key in options:
            if key not in accepted:
                raise InvalidInputError(
                    f"{option_name(key) if isinstance(key, str) else f'options[{key!r}]'}: "
                    f"not an option of method={method!r}; its options are: {listed}"
                )
        return cls(**options)

    def _count(self, name: str, **limits) -> None:
        # every count option is an iteration or sweep budget: capped as the library caps them all
        limits.setdefault("maximum", MAX_ITERATIONS)
        object.__setattr__(self, name, as_count(getattr(self, name), option_name(name), **limits))

    def _tolerance(self, name: str) -> None:
        object.__setattr__(self, name, as_tolerance(getattr(self, name), option_name(name)))

    def _number(self, name: str, **limits) -> None:
        object.__setattr__(self, name, as_number(getattr(self, name), option_name(name), **limits))
