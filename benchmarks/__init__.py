"""Side-by-side speed comparisons against baselines (ratios measured in one run)."""
