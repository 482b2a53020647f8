"""What a run found: test outcomes as verdict-matrix cells, the JSON and HTML reports, and
the peers page."""
