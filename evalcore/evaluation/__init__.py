"""The one evaluation path: option objects, the Evaluator, Results, retrieval and qrels."""
