"""Studies built on the evaluation path: ablation sweeps, the measure comparison and the paper's reproduction."""
