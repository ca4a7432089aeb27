"""fairlib._jit.steered: a driver run as Python over compiled kernels computes what the compiled
driver computes, bit for bit (its own arithmetic is plain IEEE operations; exp, log, sums and solves
stay in kernels)."""

import importlib

import numpy as np
import pytest

from fairlib._jit import compiled, steered

PFVDS = importlib.import_module("fairlib.multires.pfvds._best_response")


def _server(seed):
    """One server's best-response problem: capacities, demands (some zero), the other servers'
    tasks, a_n and γ."""
    rng = np.random.default_rng(seed)
    users, resources = int(rng.integers(2, 30)), int(rng.integers(1, 4))
    cap = rng.uniform(1.0, 10.0, resources)
    d = rng.uniform(0.01, 1.0, (users, resources))
    d[rng.random(d.shape) < 0.3] = 0.0
    d[:, 0] = np.maximum(d[:, 0], 0.05)
    x_o = rng.uniform(0.0, 3.0, users) * (rng.random(users) < 0.7)
    weight = rng.uniform(0.5, 2.0, users)
    gamma = rng.uniform(0.5, 5.0, users)
    return cap, d, x_o, weight * gamma, gamma, weight


@pytest.mark.parametrize("alpha", [1.0, 4.0, 16.0, 64.0])
def test_steered_best_response_is_the_compiled_one_bit_for_bit(alpha):
    """The Nash-residual certificate's best response (dual Newton, then the log-price fallback,
    steered from Python) against the compiled kernel the best-response sweeps run: the same tasks,
    iterations, gap and prices. The dual Newton stalls on some of these servers (large α, prices
    near 0), so the fallback is compared too."""
    fallbacks = 0
    with compiled():
        for seed in range(40):
            cap, d, x_o, a, gamma, weight = _server(seed)
            lam_kernel, lam_steered, lam_first = (
                np.zeros(cap.size),
                np.zeros(cap.size),
                np.zeros(cap.size),
            )
            want = PFVDS._best_response(
                cap, d, x_o, a, gamma, weight, alpha, lam_kernel, PFVDS.ResponseLimits(1e-12, 200)
            )
            got = PFVDS._BEST_RESPONSE_STEERED(
                cap, d, x_o, a, gamma, weight, alpha, lam_steered, PFVDS.ResponseLimits(1e-12, 200)
            )
            assert want[0].tobytes() == got[0].tobytes() and want[1:] == got[1:], seed
            assert lam_kernel.tobytes() == lam_steered.tobytes(), seed
            first = PFVDS._dual_newton_response(
                cap, d, x_o, a, gamma, weight, alpha, lam_first, PFVDS.ResponseLimits(1e-12, 200)
            )
            fallbacks += first[2] > max(1e-12, PFVDS._STALLED)
    assert fallbacks > 0


def test_steered_needs_kernels_by_name():
    """Only kernels of the driver's module can be run as Python by name; anything else is named in
    the error."""
    with pytest.raises(ValueError, match="'np' is not a kernel"):
        steered(PFVDS._best_response, "np")
    with pytest.raises(ValueError, match="'_no_such_kernel' is not a kernel"):
        steered(PFVDS._best_response, "_no_such_kernel")
