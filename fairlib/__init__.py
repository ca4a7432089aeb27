"""fairlib."""
