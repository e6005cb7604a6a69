"""The SDK: policies, records, rollouts, advantages and trainers."""
