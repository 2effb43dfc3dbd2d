"""What the tests and the benchmarks share, kept out of the shipped packages: stand-ins and
measuring tools that no table runs."""
