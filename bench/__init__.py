"""mqcap benchmarks: `python -m bench` (or `make bench`) runs them all and writes RESULTS.md."""
