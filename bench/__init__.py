"""Benchmarks: `make bench` runs bench.run_all, which runs every bench_*.py module here."""
