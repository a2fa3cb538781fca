"""Summarization backends: the embedded extractive default and the OpenAI-compatible LLM client."""
