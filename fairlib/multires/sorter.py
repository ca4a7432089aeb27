"""Who a production scheduler offers resources to next: DRF sorters with state across rounds.

:class:`DRFSorter` keeps clients, their allocations and the pool's totals, and answers the question a scheduler's
sorter answers before every offer: in what order are the active clients served (:meth:`DRFSorter.order`,
:meth:`DRFSorter.next`)? Two schedulers' rules are mirrored, each from its source:

``semantics="mesos"`` — Apache Mesos ``DRFSorter`` (``src/master/allocator/sorter/drf/sorter.cpp``): a client's share
is the largest ``allocated[r] / total[r]`` over the resources with a positive total, divided by its weight; equal
shares are ordered by the number of allocations the client has received (one per :meth:`DRFSorter.allocated` call,
never decremented, so a client that is offered resources and declines them moves behind its equals), then by name.
Weights must be positive.

``semantics="yarn"`` — Hadoop YARN FairScheduler ``DominantResourceFairnessPolicy`` (its comparator for any number
of resource types): a client whose usage of its dominant resource is below its configured minimum share ("needy")
comes before any client that is not; two needy clients compare ``usage / min_share`` per resource, two others
``usage / (total · weight)`` per resource, in both cases with the resources sorted by the client's own usage share,
largest first, and compared lexicographically (the largest, then the next, …); ties go to the client added first
(YARN's start time), then to the name. A weight of 0 is allowed, as in YARN: such a client is served after every
client with a positive weight (and, among zero-weight clients, by their unweighted shares).

Rules shared by both, and where we differ from the scheduler (documented choices):

- a resource whose total is 0 is left out of every share (Mesos skips it; YARN would divide by zero, giving an
  infinite or undefined ratio, and we do not mirror that);
- a client with nothing allocated has share 0 and is served first (with its ties broken as above);
- shares are float64 (Mesos uses double; YARN computes float32 ratios, so YARN may see ties that float64 separates);
- YARN divides by a zero weight: an infinite ratio for a client with usage, but NaN (which its comparator treats as
  equal to anything) for one without; we serve a zero-weight client last in both cases, as ``drf(...,
  zeros="scheduler")`` does. A zero minimum share gives 0 / 0 the same way; we use 0 there.

The sorter is the reference for :func:`~fairlib.multires.progressive_filling.drf`'s scheduler tie rules
(``tie_break="lexicographic"`` and ``"allocation_count"``): progressive filling is repeatedly giving one task to
the first client of :meth:`DRFSorter.order` whose task still fits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import InvalidInputError, as_capacities, check_choice

__all__ = ["DRFSorter", "SORTER_SEMANTICS"]

SORTER_SEMANTICS = ("mesos", "yarn")


@dataclass
class _Client:
    weight: float
    added: int
    allocation: np.ndarray
    min_share: np.ndarray
    active: bool = True
    allocations: int = 0


class DRFSorter:
    """A DRF sorter over one pool: clients, their allocations and the offer order, with state across rounds.

    Parameters
    ----------
    capacity : (n_resources,) array_like
        The pool's totals, each ``>= 0`` (a zero total is left out of shares).
    semantics : {"mesos", "yarn"}
        Whose ordering rule (module docstring).
    resources : sequence of str, optional
        Resource names, for messages and :meth:`dominant_resource`. Default ``r0, r1, …``.

    Examples
    --------
    Two identical clients offered the same resources ten times, each declining (allocated, then unallocated):
    Mesos's allocation count alternates the offers; a stateless lowest-index rule would offer all ten to ``a``.

    >>> s = DRFSorter([10, 10])
    >>> s.add("a"); s.add("b")
    >>> offers = []
    >>> for _ in range(10):
    ...     who = s.next()
    ...     offers.append(who)
    ...     s.allocated(who, [1, 1])
    ...     s.unallocated(who, [1, 1])
    >>> offers.count("a"), offers.count("b")
    (5, 5)
    """

    def __init__(self, capacity, *, semantics: str = "mesos", resources=None):
        check_choice(semantics, SORTER_SEMANTICS, "semantics")
        self.semantics = semantics
        total = as_capacities(capacity, allow_zero=True)
        self._total = total
        n = len(total)
        if resources is None:
            resources = [f"r{r}" for r in range(n)]
        resources = [str(r) for r in resources]
        if len(resources) != n or len(set(resources)) != n:
            raise InvalidInputError(f"resources: expected {n} distinct names (one per capacity entry), got "
                                    f"{resources!r}")
        self.resources = tuple(resources)
        self._clients: dict[str, _Client] = {}
        self._added = 0

    # ---- input checks -------------------------------------------------------------------------------------------
    def _vector(self, values, name: str) -> np.ndarray:
        """A resource vector: one finite entry >= 0 per resource."""
        arr = as_capacities(values, name, allow_zero=True)  # 1-D, finite, >= 0
        if arr.shape != self._total.shape:
            raise InvalidInputError(f"{name}: expected a vector ({len(self._total)} entries, one per resource), "
                                    f"got shape {arr.shape}")
        return arr

    def _client(self, name: str) -> _Client:
        try:
            return self._clients[name]
        except KeyError:
            raise InvalidInputError(f"client {name!r}: not in the sorter (add it first)") from None

    def _weight(self, weight, name: str) -> float:
        w = float(weight)
        if not np.isfinite(w) or w < 0 or (w == 0 and self.semantics == "mesos"):
            rule = "> 0 (Mesos weights are positive)" if self.semantics == "mesos" else ">= 0"
            raise InvalidInputError(f"weight of client {name!r} = {weight}: must be finite and {rule}")
        return w

    # ---- clients ------------------------------------------------------------------------------------------------
    def add(self, name: str, weight: float = 1.0, *, min_share=None, active: bool = True) -> None:
        """Add a client (active unless ``active=False``). ``min_share`` (a resource vector, YARN only) is its
        configured minimum share; default none."""
        name = str(name)
        if name in self._clients:
            raise InvalidInputError(f"client {name!r}: already in the sorter")
        if min_share is not None and self.semantics != "yarn":
            raise InvalidInputError(f"min_share of client {name!r}: only semantics='yarn' has minimum shares")
        mins = np.zeros_like(self._total) if min_share is None else self._vector(min_share, f"min_share[{name!r}]")
        self._clients[name] = _Client(weight=self._weight(weight, name), added=self._added,
                                      allocation=np.zeros_like(self._total), min_share=mins, active=bool(active))
        self._added += 1

    def remove(self, name: str) -> None:
        """Remove a client and its allocation."""
        self._client(name)
        del self._clients[name]

    def activate(self, name: str) -> None:
        """Put a client back into :meth:`order` (Mesos: a framework that wants offers again)."""
        self._client(name).active = True

    def deactivate(self, name: str) -> None:
        """An inactive client keeps its allocation and allocation count but is left out of :meth:`order`."""
        self._client(name).active = False

    def update_weight(self, name: str, weight: float) -> None:
        """Change a client's weight (its share is divided by it)."""
        self._client(name).weight = self._weight(weight, name)

    def contains(self, name: str) -> bool:
        """Whether ``name`` is a client, active or not."""
        return name in self._clients

    def __len__(self) -> int:
        return len(self._clients)

    # ---- resources ----------------------------------------------------------------------------------------------
    @property
    def capacity(self) -> np.ndarray:
        """The pool's totals (a copy)."""
        return self._total.copy()

    def set_capacity(self, capacity) -> None:
        """Replace the pool's totals (agents added or removed); shares follow at the next :meth:`order`."""
        self._total = self._vector(capacity, "capacity")  # same number of resources

    def allocated(self, name: str, amounts) -> None:
        """Record resources given to ``name`` (one allocation: Mesos counts it)."""
        c = self._client(name)
        c.allocation = c.allocation + self._vector(amounts, f"allocated({name!r})")
        c.allocations += 1

    def unallocated(self, name: str, amounts) -> None:
        """Record resources returned by ``name``; more than it holds is an error naming the resource."""
        c = self._client(name)
        left = c.allocation - self._vector(amounts, f"unallocated({name!r})")
        short = left < -1e-12 * np.maximum(self._total, 1.0)
        if short.any():
            r = int(np.argmax(short))
            raise InvalidInputError(f"unallocated({name!r}): returns {c.allocation[r] - left[r]:g} of "
                                    f"{self.resources[r]!r}, more than the {c.allocation[r]:g} it holds")
        c.allocation = np.maximum(left, 0.0)

    def allocation(self, name: str) -> np.ndarray:
        """What ``name`` holds, per resource (a copy)."""
        return self._client(name).allocation.copy()

    def allocation_count(self, name: str) -> int:
        """How many :meth:`allocated` calls ``name`` has received (Mesos's tie rule)."""
        return self._client(name).allocations

    # ---- shares and order ---------------------------------------------------------------------------------------
    def _usage_ratios(self, c: _Client) -> np.ndarray:
        """``allocated / total`` per resource, 0 on resources with a zero total."""
        pos = self._total > 0
        return np.where(pos, c.allocation / np.where(pos, self._total, 1.0), 0.0)

    def share(self, name: str) -> float:
        """The client's weighted dominant share (``inf`` for a zero-weight YARN client: it is served last)."""
        c = self._client(name)
        if c.weight == 0:
            return np.inf
        return float(self._usage_ratios(c).max()) / c.weight

    def dominant_resource(self, name: str) -> str:
        """The resource of the client's largest usage share (the first such on ties; as YARN's comparator and
        Kueue's report pick it)."""
        return self.resources[int(np.argmax(self._usage_ratios(self._client(name))))]

    def _key(self, name: str, c: _Client):
        if self.semantics == "mesos":
            return (self.share(name), c.allocations, name)
        usage = self._usage_ratios(c)
        dominant = int(np.argmax(usage))
        needy = c.allocation[dominant] < c.min_share[dominant]
        by_usage = np.argsort(-usage, kind="stable")  # YARN sorts resources by usage share, largest first
        if needy:
            pos = c.min_share > 0
            ratios = np.where(pos, c.allocation / np.where(pos, c.min_share, 1.0),
                              np.where(c.allocation > 0, np.inf, 0.0))
        elif c.weight == 0:  # served after every positive weight; among themselves by unweighted shares
            ratios = usage
        else:
            ratios = usage / c.weight
        last = c.weight == 0 and not needy
        return (0 if needy else 1, last, tuple(ratios[by_usage].tolist()), c.added, name)

    def order(self) -> list[str]:
        """Active clients in the order the scheduler would offer resources to them."""
        active = [(name, c) for name, c in self._clients.items() if c.active]
        return [name for name, c in sorted(active, key=lambda item: self._key(*item))]

    def next(self) -> str | None:
        """The client offered resources next (``None`` if no client is active)."""
        ranked = self.order()
        return ranked[0] if ranked else None
