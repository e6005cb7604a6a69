"""Policy backends: ``hf`` (transformers, CPU or GPU), ``vllm`` and ``openai`` (HTTP).

Each module imports its heavy dependency lazily, so importing this package is free.
"""
