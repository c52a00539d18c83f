"""Per-node sufficient statistics: histograms over codes (build, subtract)."""
