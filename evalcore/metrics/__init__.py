"""Metrics over a ranking: the metric registry, tie orders and concept-detection F1."""
