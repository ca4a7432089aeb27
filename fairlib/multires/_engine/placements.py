"""The bound on placements that Best-Fit DRFH and DRF's machine offers share: a one-task-at-a-time
filling of a cluster is refused above :data:`MAX_PLACEMENTS` placements and runs interpreted below
:data:`~fairlib.multires._engine.filling.INTERPRET_TASKS_AT_MOST`.
"""

from __future__ import annotations

import numpy as np

from ..._validate import InvalidInputError, as_count
from .filling import INTERPRET_TASKS_AT_MOST


#: the most placements Best-Fit DRFH and DRF's machine offers make before refusing an instance (each
#: placement scans every user and server: 10⁸ placements of a 100-user, 100-server cluster are
#: ~10¹² operations, hours)
MAX_PLACEMENTS = 100_000_000


def placement_bound(cluster, quantum: float = 1.0) -> float:
    """An upper bound on the placements a one-task-at-a-time filling makes.

    The tasks each user could run alone on each usable server (γ, zero elsewhere), capped by its
    ``max_tasks``, over ``quantum`` tasks per placement.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    quantum : float, default 1.0
        Tasks per placement (> 0).

    Returns
    -------
    float
        The bound, in placements.
    """
    return float(np.minimum(cluster.gamma.sum(axis=1), cluster.max_tasks).sum() / quantum)


def check_placements(
    cluster, quantum: float, max_placements, what: str, *, with_quantum: bool = True
) -> None:
    """Refuse, by name, an instance whose placements could exceed ``max_placements``.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    quantum : float
        Tasks per placement (> 0).
    max_placements : int
        The most placements allowed (1 to :data:`MAX_PLACEMENTS`).
    what : str
        The mechanism's name, which the refusal starts with.
    with_quantum : bool, default True
        Whether the mechanism takes a ``quantum`` (the refusal suggests raising it only then).

    Raises
    ------
    InvalidInputError
        ``max_placements`` is not a count >= 1, or :func:`placement_bound` exceeds it.
    """
    max_placements = as_count(max_placements, "max_placements", maximum=MAX_PLACEMENTS)
    bound = placement_bound(cluster, quantum)
    if not bound <= max_placements:
        # only the remedies this call has: a quantum where the mechanism takes one, a larger cap
        # while the cap is below its ceiling
        remedies = ["raise quantum"] if with_quantum else []
        if max_placements < MAX_PLACEMENTS:
            remedies.append(f"raise max_placements up to {MAX_PLACEMENTS}")
        remedies.append("use drfh for instances this large")
        raise InvalidInputError(
            f"{what}: up to {bound:.3g} placements (tasks each user fits on each server"
            f"{f' / quantum = {quantum:g}' if quantum != 1 else ''}), more than max_placements = "
            f"{max_placements}; " + ", or ".join(remedies)
        )


def _bounded_steps(cluster, *, quantum: float = 1.0, **_) -> bool:
    """Few enough placements for the interpreter (DRF's rule, :data:`INTERPRET_TASKS_AT_MOST`
    steps): :func:`placement_bound`."""
    if not (isinstance(quantum, (int, float, np.integer, np.floating)) and quantum > 0):
        return False
    return bool(placement_bound(cluster, float(quantum)) <= INTERPRET_TASKS_AT_MOST)
