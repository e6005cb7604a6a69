"""Policy backends: transformers (hf), OpenAI-compatible HTTP servers (openai), vLLM."""
