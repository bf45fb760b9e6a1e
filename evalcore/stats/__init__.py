"""Statistics over per-query scores: confidence intervals and significance tests."""
