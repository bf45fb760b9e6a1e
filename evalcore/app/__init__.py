"""What the dashboard computes: the workspace of inputs, the Table-1 baselines and the explanations."""
