"""Production schedulers' semantics: who Mesos's, YARN's, Kueue's or Volcano's DRF sorter offers
resources to next (:mod:`.sorter`), guarantees, limits and lending limits as resource vectors
(:mod:`.quotas`), and hierarchical DRF over a tree of weighted queues (:mod:`.hierarchy`). Their
public names are those of :mod:`fairlib.multires`."""
