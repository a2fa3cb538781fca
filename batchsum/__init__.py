"""batchsum: summarize, measure and search large folders of text, offline by default."""

__version__ = "0.1.0"
