"""What makes the extractive summarizer's outputs what they are, for the run's cache keys.

Kept apart from the summarizer itself so that a re-run with nothing to do can compare signatures
without loading it (and numpy).
"""

from __future__ import annotations

# Bump when the same input would give a different extractive summary. It is part of every node key
# and of the run's signature, so the next run after an upgrade redoes every tree once instead of
# keeping summaries the new version would not write.
EXTRACTIVE_VERSION = 42


def extractive_identity() -> str:
    """The algorithm's version. The final's word cap shapes HIERARCHICAL finals only, so it is part of
    their keys (:func:`batchsum.engine.nodes.output_key`), not of every node's."""
    return f"v{EXTRACTIVE_VERSION}"
