"""Relevance between two images: the measures' registry, their formulas, the knowledge graph and its taxonomy."""
