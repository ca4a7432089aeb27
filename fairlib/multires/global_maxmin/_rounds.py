"""Progressive filling's bookkeeping shared by both round solvers of
:mod:`fairlib.multires.global_maxmin`: floors that wait for the common level, users frozen at their
caps, and a final scaling to the caps."""

from __future__ import annotations

import numpy as np

#: frozen levels are kept up to this relative slack: HiGHS meets constraints to its feasibility
#: tolerance
_FREEZE_SLACK = 1e-7


def _release_parked(level, parked, t) -> bool:
    """Users waiting at their floors' levels (``parked``): when the common level ``t`` has reached
    the lowest of them, the users at that floor rise with the others from now on (their level is
    unset again). One floor at a time: the next round's level is at least this floor (everyone was
    at or above it), but may be below a higher floor, whose users must keep waiting. Returns whether
    any rose: the round is then solved again before anyone is frozen."""
    if not parked.any():
        return False
    lowest = level[parked].min()
    if lowest > t:
        return False
    rise = parked & (level == lowest)
    level[rise] = np.nan
    parked &= ~rise
    return bool(rise.any())


def _stop_at_caps(achieved, coef, caps, active, t, blocked):
    """Progressive filling with per-user caps. The round's LP lifted every active user to the common
    level t; a user whose cap level (coef_n cap_n) is at most t reaches its cap on the way up,
    whatever the others do (they could all reach t together, and freezing a user lower only frees
    resources). So every such user freezes at its cap in this round; if one froze below t, the
    LP-blocked users stay active (they may rise above t now) and the next round lifts the rest. A
    capped user is a user blocked by a resource of its own. Returns (scale per user for its tasks,
    level, users to freeze)."""
    scale = np.ones_like(achieved)
    cap_level = np.where(active, coef * caps, np.inf)
    at_cap = active & (cap_level <= t)
    if not at_cap.any():
        return scale, t, blocked
    down = at_cap & (achieved > cap_level)
    scale[down] = cap_level[down] / achieved[down]
    if (cap_level[at_cap] < t).any():
        return scale, t, at_cap
    return scale, t, blocked | at_cap


def _within_caps(tasks, caps):
    """Users a later round gave more than their cap (a frozen user's level is only a lower bound
    there) scaled down to it: still feasible, and the levels are unchanged."""
    totals = tasks.sum(axis=1)
    over = totals > caps
    if over.any():
        tasks = tasks.copy()
        tasks[over] *= (caps[over] / totals[over])[:, None]
    return tasks


def _at_levels(tasks, coef, level):
    """Every user's tasks scaled down to the level it was frozen at (still feasible). In the
    lexicographic max-min every user ends exactly at its frozen level; a round's solution may
    leave a user above it by the solver's tolerance in *level* units, which is a large relative
    error in the tasks of a user whose level per task ``coef`` is large (a small weight): its
    tasks then come from the level, which the rounds determine to the solvers' relative accuracy."""
    achieved = coef * tasks.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(achieved > level, level / achieved, 1.0)
    return tasks * scale[:, None]
