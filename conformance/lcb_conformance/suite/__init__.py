"""The suite's data: fixture cases, the goldens and their integrity, deviations, the case index."""
