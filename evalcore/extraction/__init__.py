"""Concept sets from captions: the mention finder, negation and the imaging vocabulary."""
