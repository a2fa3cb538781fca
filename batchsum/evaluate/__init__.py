"""Evaluation against reference summaries: ROUGE, entity/number recall, baselines side by side.

Entry point: :func:`batchsum.evaluate.runner.evaluate` (what ``batchsum eval`` calls).
"""
