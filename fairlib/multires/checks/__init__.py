"""Property checkers of multi-server allocations: sharing incentive, envy-freeness, Pareto
optimality and bottleneck fairness (:mod:`.server_properties`), certified bounds on the utilisation
of every PS-DSF allocation (:mod:`.psdsf_range`) and of every placement of fixed totals
(:mod:`.utilisation_range`). Their public names are those of :mod:`fairlib.multires`."""
