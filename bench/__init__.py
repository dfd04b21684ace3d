"""TabPilot's benchmarks: `python -m bench [SCENARIO...]` (bench/__main__.py) runs the scenarios registered in
bench/scenarios/ and writes their results to bench/results/; `python -m bench.docs` turns the newest
results into docs/performance.md's tables."""
