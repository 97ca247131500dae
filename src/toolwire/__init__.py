"""toolwire: the LLM tool-calling round trip for any model."""
