"""Who a production scheduler offers resources to next: DRF sorters with state across rounds.

:class:`DRFSorter` keeps clients, their allocations and the pool's totals, and answers the question
a scheduler's sorter answers before every offer: in what order are the active clients served
(:meth:`DRFSorter.order`, :meth:`DRFSorter.next`)? Two schedulers' rules are mirrored, each from its
source:

``semantics="mesos"`` — Apache Mesos ``DRFSorter``
(``src/master/allocator/sorter/drf/sorter.cpp``): a client's share is the largest ``allocated[r] /
total[r]`` over the resources with a positive total, divided by its weight; equal shares are ordered
by the number of allocations the client has received (one per :meth:`DRFSorter.allocated` call,
never decremented, so a client that is offered resources and declines them moves behind its equals),
then by name. Weights must be positive. Names with ``/`` are Mesos's nested roles: the clients form
a tree (every prefix of a name is a role), a role's share is that of everything its subtree holds
divided by the role's weight (set with :meth:`DRFSorter.update_weight` on the role's path, 1 by
default), its allocation count the sum of its subtree's, and the order walks the tree, siblings
sorted by (share, count, path). A client whose name is also a role (``a`` beside ``a/c``) competes
inside that role as one more child, with its own allocation and weight 1 (the role's weight is the
client's). This is the naive hierarchical rule of :func:`~.hierarchy.hierarchical_drf`.

``semantics="yarn"`` — Hadoop YARN FairScheduler ``DominantResourceFairnessPolicy`` (its
comparator for any number of resource types): a client whose usage of its dominant resource is below
its configured minimum share ("needy") comes before any client that is not; two needy clients
compare ``usage / min_share`` per resource, two others ``usage / (total · weight)`` per resource,
in both cases with the resources sorted by the client's own usage share, largest first, and compared
lexicographically (the largest, then the next, …); ties go to the client added first (YARN's start
time), then to the name. A weight of 0 is allowed, as in YARN: such a client is served after every
client with a positive weight (and, among zero-weight clients, by their unweighted shares).

``semantics="kueue"`` — Kubernetes Kueue's fair sharing (``dominantResourceShare`` of a
ClusterQueue in a cohort, ``pkg/cache``): each client (ClusterQueue) has a nominal quota and,
optionally, a lending limit per resource; a client's share is ``max_r max(0, allocated[r] -
nominal[r]) / lendable[r]`` divided by its weight, where ``lendable[r]`` is the cohort's lendable
total: every client's lending limit, or its nominal quota where it has none. Only what a client
borrows beyond its quota counts, so a client within its quota has share 0 and no dominant resource;
a resource nobody can lend (lendable 0) is left out; a zero weight makes a borrowing client's share
infinite (Kueue: the largest integer; earlier Kueue releases gave it to every zero-weight queue,
borrowing or not) with no dominant resource; equal borrowed shares name the alphabetically first
resource. Kueue reports the share as an integer, ``⌊1000 · share⌋``, and compares those (so it
sees ties the float separates); we keep the float. Equal shares go to the client added first, then
the name. One flavour per resource: Kueue sums a resource's borrowing and lendable totals over its
flavours, which a vector with one entry per resource does not model.

``semantics="volcano"`` — Volcano's ``drf`` plugin (``pkg/scheduler/plugins/drf/drf.go``, its
``jobOrderFn``): a job's share is the largest ``allocated[r] / total[r]`` over the resources
(``helpers.Share``: a resource with total 0 counts 0 if the job holds none of it and 1 if it holds
some), unweighted (Volcano's DRF jobs have no weights, so a weight other than 1 is refused); equal
shares are left to the other plugins, and when none decides Volcano orders jobs by creation time,
then UID — here the client added first, then the name. The hierarchical variant is
:func:`~.hierarchy.hierarchical_drf` (``variant="hdrf"``).

Rules shared by the first three, and where we differ from the scheduler (documented choices):

- a resource whose total is 0 is left out of every share (Mesos skips it; YARN would divide by zero,
  giving an infinite or undefined ratio, and we do not mirror that; Kueue divides by the cohort's
  lendable total instead, and leaves out a resource whose lendable total is 0);
- a client with nothing allocated has share 0 and is served first (with its ties broken as above);
- shares are float64 (Mesos uses double; YARN computes float32 ratios, so YARN may see ties that
  float64 separates);
- YARN divides by a zero weight: an infinite ratio for a client with usage, but NaN (which its
  comparator treats as equal to anything) for one without; we serve a zero-weight client last in
  both cases, as ``drf(..., zeros="scheduler")`` does. A zero minimum share gives 0 / 0 the same
  way; we use 0 there.

The sorter is the reference for :func:`~fairlib.multires.progressive_filling.drf`'s scheduler tie
rules (``tie_break="lexicographic"`` and ``"allocation_count"``): progressive filling is repeatedly
giving one task to the first client of :meth:`DRFSorter.order` whose task still fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import (
    InvalidInputError,
    _short,
    Labels,
    _check_aligned,
    as_capacities,
    as_flag,
    as_label,
    as_labels,
    as_weight,
    check_choice,
)

__all__ = ["DRFSorter", "SORTER_SEMANTICS"]

SORTER_SEMANTICS = ("mesos", "yarn", "kueue", "volcano")

#: returning up to this fraction more than a client holds is rounding (of the sums that made what it
#: holds), not an error
_RETURN_SLACK = 1e-12


@dataclass
class _Client:
    weight: float
    added: int
    allocation: np.ndarray
    min_share: np.ndarray
    nominal: np.ndarray | None = None
    lendable: np.ndarray | None = None
    active: bool = True
    allocations: int = 0
    #: the most of each resource held since it last held none: the scale of the sums that made
    #: what it holds, and so of their rounding
    peak: np.ndarray | None = None

    def hold(self, allocation: np.ndarray) -> None:
        """Hold ``allocation`` from now on (peaks follow; a resource emptied starts afresh)."""
        peak = np.zeros_like(allocation) if self.peak is None else self.peak
        self.peak = np.where(allocation > 0, np.maximum(peak, allocation), 0.0)
        self.allocation = allocation


class DRFSorter:
    """A DRF sorter over one pool: clients, their allocations and the offer order, with state across
    rounds.

    Parameters
    ----------
    capacity : array_like
        Shape (n_resources,): the pool's totals, each ``>= 0`` (a zero total is left out of shares).
    semantics : {"mesos", "yarn", "kueue", "volcano"}, default "mesos"
        Whose ordering rule (module docstring).
    resources : sequence of str or None, default None
        Resource names (text), for messages and :meth:`dominant_resource`, in the order of the
        capacities (a list or tuple, not a set); None: ``r0, r1, …``.

    Raises
    ------
    InvalidInputError
        On invalid capacities, an unknown ``semantics``, resource names that are not one distinct
        text name per capacity entry, or are given as a set, or a pandas ``capacity`` whose labels
        are not ``resources`` (same names, same order). Every resource vector given later
        (``allocated``, ``unallocated``, ``update``, ``set_capacity``, quotas) is checked alike,
        against ``resources`` or else a pandas ``capacity``'s labels.

    Examples
    --------
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

    def __init__(
        self,
        capacity: ArrayLike,
        *,
        semantics: str = "mesos",
        resources: Sequence[str] | None = None,
    ) -> None:
        """Checks the semantics, the capacity and the resource names (against a labelled
        capacity's too) and starts with no client."""
        check_choice(semantics, SORTER_SEMANTICS, "semantics")
        self.semantics = semantics
        total = as_capacities(capacity, allow_zero=True)
        self._total = total
        n = len(total)
        given_names = resources is not None
        if resources is None:
            resources = [f"r{r}" for r in range(n)]
        # names as given: b"cpu" or 0 made into "b'cpu'" or "0" would name no resource the caller
        # knows, and a set's order would pair the names with the capacities by hash seed
        resources = as_labels(resources, "resources")
        if len(resources) != n:
            raise InvalidInputError(
                f"resources: expected {n} distinct names (one per capacity entry), got "
                f"{list(resources)!r}"
            )
        # the labels every resource vector given later must repeat: the names given, else a pandas
        # capacity's labels (the default names r0, r1, ... label nothing)
        self._aligned: tuple[str, object, int | None] = (
            ("resources", tuple(resources), None)
            if given_names
            else ("capacity", Labels.of(capacity), 0)
        )
        if given_names:
            _check_aligned(capacity, "capacity", 0, self._aligned)
        self.resources = resources
        self._clients: dict[str, _Client] = {}
        self._role_weights: dict[
            str, float
        ] = {}  # Mesos roles that are not clients: weight by path
        self._added = 0

    def __copy__(self) -> DRFSorter:
        """``copy.copy``: an independent sorter (a deep copy), with its own clients and allocations:
        a shallow copy would add, allocate and reorder in the original's state."""
        import copy

        return copy.deepcopy(self)

    # ---- input checks ----------------------------------------------------------------------------
    def _vector(self, values, name: str) -> np.ndarray:
        """A resource vector: one finite entry >= 0 per resource."""
        _check_aligned(values, name, 0, self._aligned)
        arr = as_capacities(values, name, allow_zero=True)  # 1-D, finite, >= 0
        if arr.shape != self._total.shape:
            raise InvalidInputError(
                f"{name}: expected a vector ({len(self._total)} entries, one per resource), "
                f"got shape {arr.shape}"
            )
        return arr

    def _client(self, name: str) -> _Client:
        if not isinstance(name, str):
            raise InvalidInputError(
                f"name = {_short(name)}: a client name is a string, got {type(name).__name__}"
            )
        try:
            return self._clients[name]
        except KeyError:
            raise InvalidInputError(
                f"name = {name!r}: client {name!r} is not in the sorter (add it first)"
            ) from None

    def _weight(self, weight, name: str) -> float:
        w = as_weight(weight, f"weight of client {name!r}", allow_zero=True)
        if w == 0 and self.semantics == "mesos":
            raise InvalidInputError(
                f"weight of client {name!r} = {weight}: must be > 0 (Mesos weights are positive)"
            )
        if self.semantics == "volcano" and w != 1:
            raise InvalidInputError(
                f"weight of client {name!r} = {weight}: Volcano's drf plugin has no weights "
                "(give 1 or none)"
            )
        return w

    # ---- clients ---------------------------------------------------------------------------------
    def _path(self, name) -> str:
        """A client or role name (a string): Mesos's may nest (``a/b``), with no blank part; YARN's
        are flat here. A blank name (empty or only whitespace) is refused, and anything else is
        refused rather than turned into text (``add(1)`` then ``contains(1)`` would be False)."""
        if not isinstance(name, str):
            raise InvalidInputError(
                f"name = {_short(name)}: a client or role name is a string, got "
                f"{type(name).__name__}"
            )
        if "/" in name and self.semantics != "mesos":
            raise InvalidInputError(
                f"client {name!r}: nested names ('a/b') are Mesos roles; the YARN policy "
                "mirrored here orders one flat queue"
            )
        return as_label(name, "name", nested=True)

    def add(
        self,
        name: str,
        weight: float | None = None,
        *,
        min_share: ArrayLike | None = None,
        nominal: ArrayLike | None = None,
        lending_limit: ArrayLike | None = None,
        active: bool = True,
    ) -> None:
        """Add a client with a weight and, for YARN and Kueue, its quotas.

        Mesos: ``name`` may nest (``"eng/dev"``, module docstring); if it names a role whose weight
        was set, the client takes that weight unless ``weight`` is given.

        Parameters
        ----------
        name : str
            The client's name, not already in the sorter.
        weight : float or None, default None
            Its weight, >= 0 (Mesos: > 0; Volcano: 1 only), dividing its share; None: 1 (Mesos: the
            role's weight if one was set).
        min_share : array_like or None, default None
            Shape (n_resources,): its configured minimum share (``semantics="yarn"`` only); None:
            none. It may exceed the cluster's capacity, as YARN's ``minResources`` may: the client
            then counts as below its minimum ("needy") however much it holds.
        nominal : array_like or None, default None
            Shape (n_resources,): its nominal quota (``semantics="kueue"``, where it is required).
            It may exceed the cluster's capacity, as a ClusterQueue's ``nominalQuota`` may (Kueue
            does not compare quotas with the nodes).
        lending_limit : array_like or None, default None
            Shape (n_resources,): how much of its nominal quota it lends (Kueue only), <=
            ``nominal``; None: all of it.
        active : bool, default True
            Whether it is offered resources (:meth:`order`) from the start.

        Raises
        ------
        InvalidInputError
            On a name that is blank (empty or only whitespace; Mesos: a role path with a blank
            part) or already in the sorter, an invalid weight or vector, a quota the semantics
            does not have, or a Kueue client without its nominal quota.
        """
        name = self._path(name)
        active = as_flag(active, "active")
        if weight is None:
            weight = self._role_weights.get(name, 1.0)
        if name in self._clients:
            raise InvalidInputError(f"client {name!r}: already in the sorter")
        if min_share is not None and self.semantics != "yarn":
            raise InvalidInputError(
                f"min_share of client {name!r}: only semantics='yarn' has minimum shares"
            )
        mins = (
            np.zeros_like(self._total)
            if min_share is None
            else self._vector(min_share, f"min_share[{name!r}]")
        )
        quota = lend = None
        if self.semantics == "kueue":
            if nominal is None:
                raise InvalidInputError(
                    f"nominal of client {name!r}: a Kueue ClusterQueue needs its nominal quota "
                    "(a resource vector)"
                )
            quota = self._vector(nominal, f"nominal[{name!r}]")
            lend = (
                quota
                if lending_limit is None
                else self._vector(lending_limit, f"lending_limit[{name!r}]")
            )
            over = lend > quota
            if over.any():  # as Quotas.resolve: a queue lends at most its own nominal quota
                r = int(np.argmax(over))
                raise InvalidInputError(
                    f"lending_limit[{name!r}][{r}] = {lend[r]:g}: above the nominal quota "
                    f"{quota[r]:g} of {self.resources[r]!r} (a queue lends at most its own)"
                )
        elif nominal is not None or lending_limit is not None:
            raise InvalidInputError(
                f"nominal / lending_limit of client {name!r}: only semantics='kueue' has quotas"
            )
        weight = self._weight(weight, name)
        self._clients[name] = _Client(
            weight=weight,
            added=self._added,
            allocation=np.zeros_like(self._total),
            min_share=mins,
            nominal=quota,
            lendable=lend,
            active=bool(active),
        )
        self._added += 1

    def remove(self, name: str) -> None:
        """Remove a client and its allocation.

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        self._client(name)
        del self._clients[name]

    def activate(self, name: str) -> None:
        """Put a client back into :meth:`order` (Mesos: a framework that wants offers again).

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        self._client(name).active = True

    def deactivate(self, name: str) -> None:
        """Leave a client out of :meth:`order`; it keeps its allocation and allocation count.

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        self._client(name).active = False

    def update_weight(self, name: str, weight: float) -> None:
        """Change a client's weight (its share is divided by it).

        Mesos: ``name`` may be any role path, a client or not (``"eng"`` weighs the whole
        ``eng/...`` subtree against its siblings), as Mesos's ``updateWeight``; a role's weight
        outlives its clients.

        Parameters
        ----------
        name : str
            The client (Mesos: any role path).
        weight : float
            The new weight, >= 0 (Mesos: > 0; Volcano: 1 only).

        Raises
        ------
        InvalidInputError
            On an invalid weight, a Mesos role path with a blank part, or (except a Mesos role path)
            a name that is not a client.
        """
        if self.semantics == "mesos":  # a role's weight outlives its clients, as in Mesos
            path = self._path(name)
            self._role_weights[path] = self._weight(weight, path)
            if path not in self._clients:
                return
        self._client(name).weight = self._weight(weight, name)

    def contains(self, name: str) -> bool:
        """Whether ``name`` is a client, active or not.

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).

        Returns
        -------
        bool
            True for a client.
        """
        # what add refuses is no client's name: asking for it is a mistake, not a "no"
        return self._path(name) in self._clients

    def __len__(self) -> int:
        return len(self._clients)

    # ---- resources -------------------------------------------------------------------------------
    @property
    def capacity(self) -> np.ndarray:
        """The pool's totals (a copy)."""
        return self._total.copy()

    def set_capacity(self, capacity: ArrayLike) -> None:
        """Replace the pool's totals (agents added or removed); shares follow at the next
        :meth:`order`.

        Parameters
        ----------
        capacity : array_like
            Shape (n_resources,): the new totals, each >= 0.

        Raises
        ------
        InvalidInputError
            On invalid capacities or a different number of resources.
        """
        self._total = self._vector(capacity, "capacity")  # same number of resources

    def allocated(self, name: str, amounts: ArrayLike) -> None:
        """Record resources given to ``name`` (one allocation: Mesos counts it).

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).
        amounts : array_like
            Shape (n_resources,): amounts per resource, finite and >= 0.

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client or ``amounts`` is invalid.
        """
        c = self._client(name)
        total = self._held(
            c, f"allocated({name!r})", self._vector(amounts, f"amounts of allocated({name!r})")
        )
        c.hold(total)
        c.allocations += 1

    def update(self, name: str, old: ArrayLike, new: ArrayLike) -> None:
        """Replace ``old`` resources held by ``name`` with ``new`` ones (Mesos's ``update``).

        E.g. a volume created from disk: not an allocation, so the count is unchanged.

        Parameters
        ----------
        name : str
            The client.
        old : array_like
            Shape (n_resources,): the resources it gives back, at most what it holds.
        new : array_like
            Shape (n_resources,): the resources it gets instead.

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client, a vector is invalid, or ``old`` exceeds what it holds.
        """
        c = self._client(name)
        left = self._returned(c, f"update({name!r})", self._vector(old, f"update({name!r}).old"))
        added = self._vector(new, f"update({name!r}).new")  # both checked before anything changes
        c.hold(self._held(c, f"update({name!r})", added, left))

    def unallocated(self, name: str, amounts: ArrayLike) -> None:
        """Record resources returned by ``name``.

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).
        amounts : array_like
            Shape (n_resources,): amounts per resource, finite and >= 0, at most what it holds
            (give or take 1e-12 of the most it held since it last held none: the rounding of the
            sums that made it; what is left within that rounding is none). A client holding none
            of a resource returns none of it.

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client, or returns more than it holds (naming the resource).
        """
        c = self._client(name)
        c.hold(
            self._returned(
                c,
                f"unallocated({name!r})",
                self._vector(amounts, f"amounts of unallocated({name!r})"),
            )
        )

    def _held(
        self, c: _Client, call: str, added: np.ndarray, base: np.ndarray | None = None
    ) -> np.ndarray:
        """What ``c`` holds once ``added`` comes on top of ``base`` (default: what it holds); a sum
        that overflows to infinity is an error naming the resource (and nothing changes)."""
        total = (c.allocation if base is None else base) + added
        if not np.isfinite(total).all():
            r = int(np.argmax(~np.isfinite(total)))
            raise InvalidInputError(
                f"{call}: {self.resources[r]!r} held would overflow to {total[r]} "
                f"({c.allocation[r]:g} held, {added[r]:g} added)"
            )
        return total

    def _returned(self, c: _Client, call: str, amounts: np.ndarray) -> np.ndarray:
        """What ``c`` holds once ``amounts`` come back; more than it holds is an error naming the
        resource (and nothing changes). The rounding allowed is relative to what ``c`` holds (the
        most it held since it last held none, the scale of the sums that made it): one relative to
        the pool's total (1e15) let a client holding nothing return 500."""
        left = c.allocation - amounts
        held = c.allocation if c.peak is None else np.maximum(c.allocation, c.peak)
        short = left < -_RETURN_SLACK * held
        if short.any():
            r = int(np.argmax(short))
            raise InvalidInputError(
                f"{call}: returns {c.allocation[r] - left[r]:g} of "
                f"{self.resources[r]!r}, more than the {c.allocation[r]:g} it holds"
            )
        # what is left within the rounding is none: three returns of 0.1 after three grants of 0.1
        # left 5.6e-17 held, a share that ordered the client after one holding nothing
        return np.where(left <= _RETURN_SLACK * held, 0.0, left)

    def allocation(self, name: str) -> np.ndarray:
        """What ``name`` holds, per resource (a copy).

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).

        Returns
        -------
        numpy.ndarray
            Float64, shape (n_resources,).

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        return self._client(name).allocation.copy()

    def allocation_count(self, name: str) -> int:
        """How many :meth:`allocated` calls ``name`` has received (Mesos's tie rule).

        Parameters
        ----------
        name : str
            The client's name (Mesos: a role path such as ``"eng/dev"``).

        Returns
        -------
        int
            The count.

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        return self._client(name).allocations

    # ---- shares and order ------------------------------------------------------------------------
    def _ratios(self, allocation: np.ndarray) -> np.ndarray:
        """``allocation / total`` per resource, 0 on resources with a zero total."""
        pos = self._total > 0
        return np.where(pos, allocation / np.where(pos, self._total, 1.0), 0.0)

    def _borrowed_ratios(self, c: _Client) -> np.ndarray:
        """Kueue: ``max(0, allocated - nominal) / lendable`` per resource, 0 where the cohort can
        lend none."""
        lendable = sum(other.lendable for other in self._clients.values())
        pos = lendable > 0
        borrowed = np.maximum(c.allocation - c.nominal, 0.0)
        return np.where(pos, borrowed / np.where(pos, lendable, 1.0), 0.0)

    def _volcano_ratios(self, allocation: np.ndarray) -> np.ndarray:
        """Volcano's ``helpers.Share`` per resource: ``allocated / total``; with a zero total, 1 if
        any is held."""
        pos = self._total > 0
        return np.where(
            pos, allocation / np.where(pos, self._total, 1.0), (allocation > 0).astype(float)
        )

    def _usage_ratios(self, c: _Client) -> np.ndarray:
        if self.semantics == "kueue":
            return self._borrowed_ratios(c)
        if self.semantics == "volcano":
            return self._volcano_ratios(c.allocation)
        return self._ratios(c.allocation)

    def share(self, name: str) -> float:
        """The client's weighted dominant share.

        ``inf`` for a zero-weight YARN client (it is served last). Kueue: the share of what it
        borrows (module docstring); ``inf`` for a zero weight while it borrows. Volcano: unweighted,
        a held resource with total 0 counting 1.

        Parameters
        ----------
        name : str
            The client.

        Returns
        -------
        float
            The share, >= 0 (possibly ``inf``).

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        c = self._client(name)
        ratios = self._usage_ratios(c)
        top = float(ratios.max()) if ratios.size else 0.0
        if c.weight == 0:
            return np.inf if (self.semantics != "kueue" or top > 0) else 0.0
        return top / c.weight

    def dominant_resource(self, name: str) -> str | None:
        """The resource of the client's largest usage share (the first such on ties; as YARN's
        comparator picks it).

        Kueue: of its largest borrowed share, ``None`` when it borrows nothing or its weight is 0
        (as Kueue reports an empty name).

        Parameters
        ----------
        name : str
            The client.

        Returns
        -------
        str or None
            The resource's name, or None.

        Raises
        ------
        InvalidInputError
            When ``name`` is not a client.
        """
        c = self._client(name)
        if (
            self.semantics == "volcano"
        ):  # Volcano: the first resource of the largest share, "" (None) when 0
            ratios = self._volcano_ratios(c.allocation)
            return self.resources[int(np.argmax(ratios))] if (ratios > 0).any() else None
        if self.semantics == "kueue":
            ratios = self._borrowed_ratios(c)
            if c.weight == 0 or not (ratios > 0).any():
                return None
            return min(
                self.resources[r] for r in np.flatnonzero(ratios == ratios.max())
            )  # Kueue: by name on ties
        return self.resources[int(np.argmax(self._ratios(c.allocation)))]

    def _key(self, name: str, c: _Client):
        if self.semantics == "mesos":
            return (self.share(name), c.allocations, name)
        if self.semantics in ("kueue", "volcano"):
            return (self.share(name), c.added, name)
        usage = self._ratios(c.allocation)
        dominant = int(np.argmax(usage))
        needy = c.allocation[dominant] < c.min_share[dominant]
        by_usage = np.argsort(
            -usage, kind="stable"
        )  # YARN sorts resources by usage share, largest first
        if needy:
            pos = c.min_share > 0
            ratios = np.where(
                pos,
                c.allocation / np.where(pos, c.min_share, 1.0),
                np.where(c.allocation > 0, np.inf, 0.0),
            )
        elif (
            c.weight == 0
        ):  # served after every positive weight; among themselves by unweighted shares
            ratios = usage
        else:
            ratios = usage / c.weight
        last = c.weight == 0 and not needy
        return (0 if needy else 1, last, tuple(ratios[by_usage].tolist()), c.added, name)

    def order(self) -> list[str]:
        """Active clients in the order the scheduler would offer resources to them.

        Returns
        -------
        list of str
            Client names, first offered first.
        """
        if self.semantics == "mesos":
            return self._role_order()
        active = [(name, c) for name, c in self._clients.items() if c.active]
        return [name for name, c in sorted(active, key=lambda item: self._key(*item))]

    def _role_order(self) -> list[str]:
        """Mesos: walk the role tree (a flat set of names is a one-level tree), siblings by
        (weighted share, count, path); inactive clients still count in their roles' shares but are
        not listed."""
        held: dict[str, np.ndarray] = {}
        counts: dict[str, int] = {}
        children: dict[str, set] = {"": set()}
        for name, c in self._clients.items():
            parts = name.split("/")
            for k in range(1, len(parts) + 1):
                path, up = "/".join(parts[:k]), "/".join(parts[: k - 1])
                children.setdefault(path, set())
                children[up].add(path)
                held[path] = held.get(path, 0.0) + c.allocation
                counts[path] = counts.get(path, 0) + c.allocations

        def weight(path: str) -> float:
            c = self._clients.get(path)
            return c.weight if c is not None else self._role_weights.get(path, 1.0)

        def walk(role: str) -> list[str]:
            # entries: (key, path, is the client itself); a client that is also a role competes
            # inside it
            entries = []
            for path in children[role]:
                entries.append(
                    (
                        (float(self._ratios(held[path]).max()) / weight(path), counts[path], path),
                        path,
                        False,
                    )
                )
            own = self._clients.get(role) if role else None
            if own is not None:
                entries.append(
                    ((float(self._ratios(own.allocation).max()), own.allocations, role), role, True)
                )
            out = []
            for _, path, itself in sorted(entries, key=lambda e: e[0]):
                if itself or not children[path]:
                    if self._clients[path].active:
                        out.append(path)
                else:
                    out.extend(walk(path))
            return out

        return walk("")

    def next(self) -> str | None:
        """The client offered resources next.

        Returns
        -------
        str or None
            The first of :meth:`order`, or ``None`` if no client is active.
        """
        ranked = self.order()
        return ranked[0] if ranked else None
